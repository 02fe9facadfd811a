/** DescribeProducers (API 61) over the wire: Kafka's fields, and brook's window tag that Kafka clients skip. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { BrookDescribeProducersResponse, WINDOWS_TAG } from '../src/protocol/producer-windows.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { DescribeProducersRequest, DescribeProducersResponse } from '../src/protocol/messages/describe-producers.js';
import { Reader } from '../src/protocol/primitives/reader.js';
import { Writer } from '../src/protocol/primitives/writer.js';
import { valuesBatch } from './helpers/batch.js';
import { Connection, describeProducersV0 } from './helpers/platformatic.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5);
const UNKNOWN_TOPIC_OR_PARTITION = 3;

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker();
  client = await WireClient.connect(broker.port);
  await createTopic(client, 'described', 2);
  // Partition 0: producer 31 writes six batches, one more than the window keeps.
  const sizes = [3, 2, 1, 1, 2, 1];
  let seq = 0;
  for (const [i, size] of sizes.entries()) {
    await produceBatch(client, 'described', 0, valuesBatch(size, { producerId: 31n, producerEpoch: 0, baseSequence: seq, baseTimestamp: T0 + i }));
    seq += size;
  }
  // Partition 1: producer 31 restarts with epoch 1; producer 32 writes once.
  await produceBatch(client, 'described', 1, valuesBatch(1, { producerId: 31n, producerEpoch: 0, baseSequence: 0, baseTimestamp: T0 }));
  await produceBatch(client, 'described', 1, valuesBatch(2, { producerId: 31n, producerEpoch: 1, baseSequence: 0, baseTimestamp: T0 + 10 }));
  await produceBatch(client, 'described', 1, valuesBatch(1, { producerId: 32n, producerEpoch: 0, baseSequence: 0, baseTimestamp: T0 + 20 }));
});

after(async () => {
  client.close();
  await broker.close();
});

function producer(producerId: bigint, producerEpoch: number, lastSequence: number, lastTimestamp: number) {
  return { producerId, producerEpoch, lastSequence, lastTimestamp: BigInt(lastTimestamp), coordinatorEpoch: -1, currentTxnStartOffset: -1n };
}

test('ApiVersions advertises DescribeProducers v0', async () => {
  const { apiKeys } = await client.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'wire', clientSoftwareVersion: '1' });
  assert.deepEqual(
    apiKeys.find((k) => k.apiKey === 61),
    { apiKey: 61, minVersion: 0, maxVersion: 0 },
  );
});

test("Kafka's view: each producer's epoch, last sequence and last write, read to the end of the frame", async () => {
  client.sendRaw(client.frame(DescribeProducersRequest, 0, { topics: [{ name: 'described', partitionIndexes: [0, 1] }] }));
  const r = new Reader((await client.nextFrame())!);
  r.readInt32();
  r.skipTaggedFields();
  const response = DescribeProducersResponse.read(r, 0);
  assert.equal(r.remaining, 0);
  assert.deepEqual(response, {
    throttleTimeMs: 0,
    topics: [
      {
        name: 'described',
        partitions: [
          { partitionIndex: 0, errorCode: 0, errorMessage: null, activeProducers: [producer(31n, 0, 9, T0 + 5)] },
          { partitionIndex: 1, errorCode: 0, errorMessage: null, activeProducers: [producer(31n, 1, 1, T0 + 10), producer(32n, 0, 0, T0 + 20)] },
        ],
      },
    ],
  });
});

test("@platformatic/kafka's DescribeProducers reads brook's answer, window tag and all", async () => {
  const connection = new Connection('describe-test');
  await connection.connect(broker.host, broker.port);
  try {
    const response = await describeProducersV0.api.async(connection, [{ name: 'described', partitionIndexes: [1] }]);
    assert.deepEqual(response.topics[0]?.partitions[0]?.activeProducers, [producer(31n, 1, 1, T0 + 10), producer(32n, 0, 0, T0 + 20)]);
  } finally {
    await connection.close();
  }
});

test("brook's window tag: the batches each producer's next batch is judged against, oldest first", async () => {
  const response = await client.request(DescribeProducersRequest, BrookDescribeProducersResponse, 0, {
    topics: [{ name: 'described', partitionIndexes: [0, 1] }],
  });
  assert.deepEqual(response.windows, [
    {
      topic: 'described',
      partition: 0,
      producerId: 31n,
      batches: [
        { firstSeq: 3, lastSeq: 4, baseOffset: 3 },
        { firstSeq: 5, lastSeq: 5, baseOffset: 5 },
        { firstSeq: 6, lastSeq: 6, baseOffset: 6 },
        { firstSeq: 7, lastSeq: 8, baseOffset: 7 },
        { firstSeq: 9, lastSeq: 9, baseOffset: 9 },
      ],
    },
    { topic: 'described', partition: 1, producerId: 31n, batches: [{ firstSeq: 0, lastSeq: 1, baseOffset: 1 }] },
    { topic: 'described', partition: 1, producerId: 32n, batches: [{ firstSeq: 0, lastSeq: 0, baseOffset: 3 }] },
  ]);
});

test('an unknown topic or partition is UNKNOWN_TOPIC_OR_PARTITION, with no window', async () => {
  const response = await client.request(DescribeProducersRequest, BrookDescribeProducersResponse, 0, {
    topics: [
      { name: 'described', partitionIndexes: [2] },
      { name: 'nowhere', partitionIndexes: [0] },
    ],
  });
  const errors = response.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.activeProducers.length])]);
  assert.deepEqual(errors, [
    ['described', [[2, UNKNOWN_TOPIC_OR_PARTITION, 0]]],
    ['nowhere', [[0, UNKNOWN_TOPIC_OR_PARTITION, 0]]],
  ]);
  assert.deepEqual(response.windows, []);
});

test("without windows brook's encoding is byte for byte Kafka's; with them it adds one tag at the end", () => {
  const base = {
    throttleTimeMs: 0,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null, activeProducers: [producer(5n, 2, 7, T0)] }] }],
  };
  const encode = <T>(codec: { write(w: Writer, v: number, value: T): void }, value: T): Buffer => {
    const w = new Writer();
    codec.write(w, 0, value);
    return w.finish();
  };
  const kafka = encode(DescribeProducersResponse, base);
  assert.deepEqual(encode(BrookDescribeProducersResponse, { ...base, windows: [] }), kafka);

  const windows = [{ topic: 't', partition: 0, producerId: 5n, batches: [{ firstSeq: 2, lastSeq: 7, baseOffset: 2 ** 40 }] }];
  const extended = encode(BrookDescribeProducersResponse, { ...base, windows });
  assert.deepEqual(extended.subarray(0, kafka.length - 1), kafka.subarray(0, -1));
  const tags = new Reader(extended, kafka.length - 1);
  assert.equal(tags.readUnsignedVarint(), 1);
  assert.equal(tags.readUnsignedVarint(), WINDOWS_TAG);
  assert.deepEqual(BrookDescribeProducersResponse.read(new Reader(extended), 0), { ...base, windows });
});
