import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { buildBatch } from './helpers/batch.js';
import { scrape } from './helpers/scrape.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceBatch, produceRequest } from './helpers/wire-produce.js';
import { ProduceRequest } from '../src/protocol/messages/produce.js';

const brokers: Broker[] = [];
const clients: WireClient[] = [];
after(async () => {
  for (const c of clients) c.close();
  await Promise.all(brokers.map((b) => b.close()));
});

const MAX_INT = 0x7fffffff;
const BATCH_VALUE_BYTES = 60_000;

/** A broker with topic `t`, `batches` batches of about 60 KB in each of its `partitions` partitions, and a client. */
async function brokerWithData(
  options: Parameters<typeof startBroker>[0],
  partitions: number,
  batches: number,
): Promise<{ broker: Broker; client: WireClient }> {
  const broker = await startBroker({ port: 0, ...options });
  brokers.push(broker);
  const client = await WireClient.connect(broker.port);
  clients.push(client);
  await createTopic(client, 't', partitions);
  for (let p = 0; p < partitions; p++) {
    for (let i = 0; i < batches; i++)
      assert.equal((await produceBatch(client, 't', p, buildBatch([{ value: Buffer.alloc(BATCH_VALUE_BYTES, i) }]))).errorCode, 0);
  }
  return { broker, client };
}

/** A Fetch of topic `t` from offset 0, naming these partitions in this order, every limit as given. */
function fetchT(partitions: readonly number[], maxBytes = MAX_INT, partitionMaxBytes = MAX_INT): FetchRequest {
  return fetchOf('t', partitions, { maxBytes, partitionMaxBytes });
}

const recordBytes = (response: FetchResponse): number[] => response.responses.flatMap((t) => t.partitions.map((p) => p.records?.length ?? 0));

test('a partition named many times in one Fetch is fetched once, in its first place, from its last mention', async () => {
  const { client } = await brokerWithData({}, 2, 4);
  const tail = recordBytes(await client.request(FetchRequest, FetchResponse, 4, fetchT([0])))[0]!;
  assert.ok(tail > 4 * BATCH_VALUE_BYTES);
  const before = process.memoryUsage().arrayBuffers;
  const request = fetchT([...Array<number>(100).fill(0), 1, 0]);
  request.topics[0]!.partitions.at(-1)!.fetchOffset = 3n;
  const response = await client.request(FetchRequest, FetchResponse, 4, request);
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.deepEqual(
    response.responses.map((t) => [t.topic, t.partitions.map((p) => p.partitionIndex)]),
    [['t', [0, 1]]],
    'each partition once, in the order first named',
  );
  const [fromLast, other] = recordBytes(response);
  assert.ok(fromLast! < tail / 2, `partition 0 is read from offset 3, its last mention's, not from 0 (${fromLast} of ${tail} bytes)`);
  assert.equal(other, tail);
  assert.ok(grown < 4_000_000, `answering 100 mentions of a ${tail}-byte partition took ${grown} bytes`);
});

test('one Fetch answers at most fetch.max.bytes of records, whatever max_bytes asks, but always its first batch whole', async () => {
  const { client } = await brokerWithData({ fetchMaxBytes: 150_000 }, 3, 5);
  const sizes = recordBytes(await client.request(FetchRequest, FetchResponse, 4, fetchT([0, 1, 2])));
  assert.equal(sizes.length, 3);
  const total = sizes.reduce((a, b) => a + b, 0);
  assert.ok(total <= 150_000 && total > 100_000, `${sizes.join(' + ')} bytes within fetch.max.bytes, whole batches`);
  assert.deepEqual(sizes.slice(1), [0, 0], 'later partitions get nothing that does not fit whole');
  const first = recordBytes(await client.request(FetchRequest, FetchResponse, 4, fetchT([1, 2], MAX_INT, 1000)));
  assert.ok(first[0]! > BATCH_VALUE_BYTES && first[0]! < 2 * BATCH_VALUE_BYTES, 'the first batch goes out whole past partition_max_bytes');
  assert.equal(first[1], 0);
});

test('a connection that does not read its answers stops being read: its pipelined fetches wait', async () => {
  const fetchMaxBytes = 2 * 1024 * 1024;
  const { broker } = await brokerWithData({ fetchMaxBytes, metricsPort: 0 }, 1, 40);
  const fetches = async (): Promise<number> => (await scrape(broker.metricsPort!)).get('brook_request_duration_seconds_count{api="Fetch"}') ?? 0;
  const reader = await WireClient.connect(broker.port);
  clients.push(reader);
  const pipelined = 40;
  reader.socket.pause();
  reader.sendRaw(Buffer.concat(Array.from({ length: pipelined }, () => reader.frame(FetchRequest, 4, fetchT([0])))));
  await new Promise((r) => setTimeout(r, 1000));
  const answered = await fetches();
  assert.ok(answered < pipelined / 2, `${answered} of ${pipelined} pipelined 2 MB fetches answered to a client that reads none`);
  reader.socket.resume();
  for (let i = 0; i < pipelined; i++) assert.ok((await reader.nextFrame(10_000)) !== undefined, `answer ${i} once the client reads`);
  await until(async () => (await fetches()) === pipelined, 'all answered');
});

test('a long-poll Fetch asking for all of fetch.max.bytes does not stop its connection: a Produce behind it is read and wakes it', async () => {
  const fetchMax = 1 << 20;
  const broker = await startBroker({ port: 0, fetchMaxBytes: fetchMax });
  after(() => broker.close());
  const client = await WireClient.connect(broker.port);
  after(() => client.close());
  for (const maxBytes of [fetchMax, 0x7fffffff]) {
    const topic = `poll-${maxBytes}`;
    await createTopic(client, topic, 1);
    const longPoll = fetchOf(topic, [0], { maxWaitMs: 20_000, minBytes: 1, maxBytes, partitionMaxBytes: 1 << 20 });
    client.sendRaw(client.frame(FetchRequest, 4, longPoll));
    client.sendRaw(client.frame(ProduceRequest, 9, produceRequest(topic, 0, buildBatch([{ value: Buffer.from('x') }]))));
    // Before the Fetch's 20 s wait ends: the Produce behind it was read and woke it.
    const answer = client.decode((await client.nextFrame(10_000))!, FetchResponse, 1, 4);
    assert.ok((answer.body.responses[0]!.partitions[0]!.records?.length ?? 0) > 0, `max_bytes ${maxBytes}: the fetch carries the record`);
    await client.nextFrame(10_000);
  }
});
