import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CompressionTypes } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { compressionOf } from '../src/protocol/record-batch.js';
import { encodeRecord, type TestRecord } from './helpers/batch.js';
import { codecs, compressedBatch, rawRecords, sealBatch, type Codec } from './helpers/compressed-batch.js';
import { consumeAll, kafkajs } from './helpers/kafkajs.js';
import { Consumer as PlatformaticConsumer, MessagesStreamModes, Producer as PlatformaticProducer, stringDeserializers } from './helpers/platformatic.js';
import { batchesIn } from './helpers/log.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic } from './helpers/wire-produce.js';

/** Small, so that records decompressing past it are cheap to send. */
const MAX_REQUEST_BYTES = 1 << 20;

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker({ port: 0, maxRequestBytes: MAX_REQUEST_BYTES });
  client = await WireClient.connect(broker.port);
});

after(async () => {
  client.close();
  await broker.close();
});

const sample: TestRecord[] = Array.from({ length: 300 }, (_, i) => ({
  key: i % 3 === 0 ? null : Buffer.from(`k${i}`),
  value: Buffer.from(`value ${i} `.repeat(1 + (i % 30))),
  headers: i % 7 === 0 ? [['trace', Buffer.from(`t${i}`)]] : [],
}));

/** One Produce request with `batches[i]` for partition i; each partition's error code and base offset. */
async function produceAll(topic: string, batches: Buffer[]): Promise<[number, number][]> {
  const partitionData = batches.map((records, index) => ({ index, records }));
  const res = await client.request(ProduceRequest, ProduceResponse, 9, {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData }],
  });
  return res.responses[0]!.partitionResponses.map((p) => [p.errorCode, Number(p.baseOffset)]);
}

async function logEndOffset(topic: string, partition: number): Promise<number> {
  const res = await client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 }] }],
    timeoutMs: 0,
  });
  return Number(res.topics[0]!.partitions[0]!.offset);
}

/** The stored batches of a partition, as Fetch returns them. */
async function storedBatches(topic: string, partition: number): Promise<Buffer[]> {
  const res = await client.request(FetchRequest, FetchResponse, 12, fetchOf(topic, [partition], { maxBytes: 8 << 20 }));
  return batchesIn(res.responses[0]!.partitions[0]!.records ?? Buffer.alloc(0));
}

test('a batch of every codec is acknowledged and fetched back byte for byte, still compressed', async () => {
  await createTopic(client, 'zipped', codecs.length);
  const sent = codecs.map((codec) => [compressedBatch(sample, codec), compressedBatch(sample.slice(0, 5), codec)]);
  assert.deepEqual(
    await produceAll(
      'zipped',
      sent.map(([first]) => first!),
    ),
    codecs.map(() => [0, 0]),
  );
  assert.deepEqual(
    await produceAll(
      'zipped',
      sent.map(([, second]) => second!),
    ),
    codecs.map(() => [0, sample.length]),
  );
  for (const [partition, batches] of sent.entries()) {
    const stored = await storedBatches('zipped', partition);
    assert.equal(stored.length, 2);
    // From the magic byte on, as sent; the base offset and leader epoch before it are the broker's.
    for (const [i, batch] of batches.entries()) assert.ok(stored[i]!.subarray(16).equals(batch.subarray(16)), `${codecs[partition]!.name} batch ${i}`);
  }
});

/** Each bad batch of `codec`, by the error code its partition must get. */
function badBatches(codec: Codec): [string, number, Buffer][] {
  const payload = codec.compress(rawRecords(sample));
  const one = codec.compress(rawRecords([{ value: Buffer.from('x') }]));
  const deltas = codec.compress(Buffer.concat([encodeRecord({ value: Buffer.from('a') }, 0), encodeRecord({ value: Buffer.from('b') }, 0)]));
  return [
    ['garbage', 87, sealBatch(codec.id, Buffer.from('\xff\xff\xff\xffthis is not compressed'), 1)],
    ['empty', 87, sealBatch(codec.id, Buffer.alloc(0), 1)],
    ['truncated', 87, sealBatch(codec.id, payload.subarray(0, payload.length - 3), sample.length)],
    ['claims 1,000,000 records, holds 1', 87, sealBatch(codec.id, one, 1_000_000)],
    ['two records at offset delta 0', 87, sealBatch(codec.id, deltas, 2)],
    ['decompresses past the request limit', 10, compressedBatch([{ value: Buffer.alloc(2 * MAX_REQUEST_BYTES) }], codec)],
  ];
}

test('bad compressed batches get their error code per partition, nothing is stored, and the broker goes on', async () => {
  for (const codec of codecs) {
    const topic = `refused-${codec.name}`;
    const bad = badBatches(codec);
    await createTopic(client, topic, bad.length + 1);
    const good = compressedBatch(sample.slice(0, 10), codec);
    const answers = await produceAll(topic, [...bad.map(([, , batch]) => batch), good]);
    assert.deepEqual(answers, [...bad.map(([, code]) => [code, -1]), [0, 0]], codec.name);
    for (const [partition, [what]] of bad.entries()) assert.equal(await logEndOffset(topic, partition), 0, `${codec.name}: ${what}`);
    assert.equal(await logEndOffset(topic, bad.length), 10);
    assert.deepEqual(await produceAll(topic, [good]), [[0, 0]], `${codec.name}: a good batch after`);
  }
});

test("a request's batches share one decompression limit; the next request has its own", async () => {
  const records = [{ value: Buffer.alloc(0.4 * MAX_REQUEST_BYTES) }];
  for (const codec of codecs) {
    const topic = `shared-room-${codec.name}`;
    await createTopic(client, topic, 3);
    const batch = compressedBatch(records, codec);
    assert.deepEqual(
      await produceAll(topic, [batch, batch, batch]),
      [
        [0, 0],
        [0, 0],
        [10, -1],
      ],
      codec.name,
    );
    assert.deepEqual(await produceAll(topic, [batch]), [[0, 1]], `${codec.name}: a second request`);
  }
});

test('kafkajs: a gzip producer writes to brook and a consumer reads every message back', async () => {
  const kafka = kafkajs(broker.bootstrap);
  await createTopic(client, 'kjs-gzip', 1);
  const producer = kafka.producer();
  await producer.connect();
  const values = Array.from({ length: 200 }, (_, i) => `gzip message ${i} `.repeat(5));
  for (let i = 0; i < values.length; i += 50) {
    await producer.send({ topic: 'kjs-gzip', compression: CompressionTypes.GZIP, messages: values.slice(i, i + 50).map((value) => ({ partition: 0, value })) });
  }
  await producer.disconnect();
  assert.ok((await storedBatches('kjs-gzip', 0)).every((batch) => compressionOf(batch.readInt16BE(21)) === 1));
  const seen = await consumeAll(kafka, 'kjs-gzip', 'kjs-gzip-reader', values.length);
  assert.deepEqual(
    seen.map((m) => m.value),
    values,
  );
});

test('@platformatic/kafka: snappy and lz4 producers write to brook and a consumer reads every message back', async () => {
  for (const compression of ['snappy', 'lz4'] as const) {
    const topic = `plt-${compression}`;
    await createTopic(client, topic, 1);
    const producer = new PlatformaticProducer({ clientId: `plt-${compression}`, bootstrapBrokers: [broker.bootstrap], compression });
    const values = Array.from({ length: 100 }, (_, i) => `${compression} message ${i} `.repeat(5));
    try {
      for (let i = 0; i < values.length; i += 25) {
        await producer.send({ messages: values.slice(i, i + 25).map((value) => ({ topic, partition: 0, value: Buffer.from(value) })) });
      }
    } finally {
      await producer.close();
    }
    const codec = compression === 'snappy' ? 2 : 3;
    assert.ok(
      (await storedBatches(topic, 0)).every((batch) => compressionOf(batch.readInt16BE(21)) === codec),
      compression,
    );
    const consumer = new PlatformaticConsumer({
      groupId: `${topic}-readers`,
      clientId: topic,
      bootstrapBrokers: [broker.bootstrap],
      deserializers: stringDeserializers,
      maxWaitTime: 100,
    });
    const seen: string[] = [];
    try {
      const stream = await consumer.consume({
        topics: [topic],
        mode: MessagesStreamModes.EARLIEST,
        autocommit: true,
        sessionTimeout: 10_000,
        heartbeatInterval: 500,
      });
      for await (const message of stream) {
        seen.push(message.value);
        if (seen.length === values.length) break;
      }
    } finally {
      await consumer.close(true);
    }
    assert.deepEqual(seen, values, compression);
  }
});

test('zstd, as in Kafka, is taken from Produce v7 on and served from Fetch v10 on; older versions get UNSUPPORTED_COMPRESSION_TYPE', async () => {
  const zstd = codecs.find((c) => c.name === 'zstd')!;
  const gzip = codecs.find((c) => c.name === 'gzip')!;
  await createTopic(client, 'zstd-versions', 1);
  const produce = async (version: number, records: Buffer) =>
    (
      await client.request(ProduceRequest, ProduceResponse, version, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: 'zstd-versions', partitionData: [{ index: 0, records }] }],
      })
    ).responses[0]!.partitionResponses[0]!;
  for (const version of [3, 6])
    assert.equal((await produce(version, compressedBatch(sample, zstd))).errorCode, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `Produce v${version}`);
  assert.equal(await logEndOffset('zstd-versions', 0), 0, 'nothing stored');
  assert.equal((await produce(3, compressedBatch(sample, gzip))).errorCode, 0, 'other codecs on v3');
  assert.equal((await produce(7, compressedBatch(sample, zstd))).errorCode, 0);
  assert.equal((await produce(7, compressedBatch(sample, gzip))).errorCode, 0);

  const fetchAt = async (version: number, offset: number) => {
    const p = (await client.request(FetchRequest, FetchResponse, version, fetchOf('zstd-versions', [0], { offset, maxBytes: 8 << 20 }))).responses[0]!
      .partitions[0]!;
    return { errorCode: p.errorCode, codecs: batchesIn(p.records ?? Buffer.alloc(0)).map((b) => compressionOf(b.readInt16BE(21))) };
  };
  assert.deepEqual(await fetchAt(9, 0), { errorCode: 0, codecs: [gzip.id] }, 'up to the zstd batch');
  assert.deepEqual(await fetchAt(9, sample.length), { errorCode: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, codecs: [] });
  assert.deepEqual(await fetchAt(9, 2 * sample.length), { errorCode: 0, codecs: [gzip.id] }, 'past it');
  assert.deepEqual(await fetchAt(10, 0), { errorCode: 0, codecs: [gzip.id, zstd.id, gzip.id] });
});
