/** The metrics endpoint of an embedded broker, scraped over HTTP while real clients use the broker. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { valuesBatch } from './helpers/batch.js';
import { consumeAll, kafkajs } from './helpers/kafkajs.js';
import { growth, scrape } from './helpers/scrape.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const OUTCOMES = ['accepted', 'duplicate', 'out_of_order', 'fenced'].map((o) => `brook_idempotent_batches_${o}_total`);
const PRODUCE = [
  'brook_produce_requests_total',
  'brook_produce_batches_total',
  'brook_produce_bytes_total',
  'brook_request_duration_seconds_count{api="Produce"}',
];
const OUT_OF_ORDER_SEQUENCE_NUMBER = 45;
const INVALID_PRODUCER_EPOCH = 47;

let broker: Broker;
let metricsPort: number;
let client: WireClient;

before(async () => {
  broker = await startBroker({ metricsPort: 0 });
  metricsPort = broker.metricsPort!;
  client = await WireClient.connect(broker.port);
  await createTopic(client, 'traced', 1);
});

after(async () => {
  client.close();
  await broker.close();
});

test("each idempotence outcome moves its own counter: the lesson's worked trace", async () => {
  const batches = [
    [valuesBatch(3, { producerId: 31n, producerEpoch: 0, baseSequence: 0 }), 0],
    [valuesBatch(2, { producerId: 31n, producerEpoch: 0, baseSequence: 3 }), 0],
    [valuesBatch(2, { producerId: 31n, producerEpoch: 0, baseSequence: 3 }), 0],
    [valuesBatch(1, { producerId: 31n, producerEpoch: 0, baseSequence: 7 }), OUT_OF_ORDER_SEQUENCE_NUMBER],
    [valuesBatch(1, { producerId: 31n, producerEpoch: 1, baseSequence: 7 }), OUT_OF_ORDER_SEQUENCE_NUMBER],
    [valuesBatch(1, { producerId: 31n, producerEpoch: 1, baseSequence: 0 }), 0],
    [valuesBatch(1, { producerId: 31n, producerEpoch: 0, baseSequence: 5 }), INVALID_PRODUCER_EPOCH],
  ] as const;
  const start = await scrape(metricsPort);
  for (const [batch, errorCode] of batches) assert.equal((await produceBatch(client, 'traced', 0, batch)).errorCode, errorCode);
  const grew = growth(start, await scrape(metricsPort), [...OUTCOMES, ...PRODUCE]);
  assert.deepEqual(grew, {
    brook_idempotent_batches_accepted_total: 3,
    brook_idempotent_batches_duplicate_total: 1,
    brook_idempotent_batches_out_of_order_total: 2,
    brook_idempotent_batches_fenced_total: 1,
    brook_produce_requests_total: 7,
    brook_produce_batches_total: 7,
    brook_produce_bytes_total: batches.reduce((sum, [batch]) => sum + batch.length, 0),
    'brook_request_duration_seconds_count{api="Produce"}': 7,
  });
});

test('a single duplicate moves duplicate by exactly one and nothing else', async () => {
  const batch = valuesBatch(1, { producerId: 77n, producerEpoch: 0, baseSequence: 0 });
  await produceBatch(client, 'traced', 0, batch);
  const start = await scrape(metricsPort);
  await produceBatch(client, 'traced', 0, batch);
  const grew = growth(start, await scrape(metricsPort), OUTCOMES);
  assert.deepEqual(Object.values(grew), [0, 1, 0, 0]);
});

test('kafkajs: each idempotent batch is one accepted, and a consumer reads back exactly the bytes produced', async () => {
  const kafka = kafkajs(broker.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'clients', numPartitions: 1 }] });
  await admin.disconnect();
  const start = await scrape(metricsPort);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (let i = 0; i < 4; i++) await producer.send({ topic: 'clients', messages: [{ value: `m${i}` }, { value: `n${i}` }] });
  await producer.disconnect();
  const produced = await scrape(metricsPort);
  const grew = growth(start, produced, [...OUTCOMES, 'brook_produce_batches_total']);
  assert.deepEqual(grew, { ...Object.fromEntries(OUTCOMES.map((o) => [o, 0])), brook_idempotent_batches_accepted_total: 4, brook_produce_batches_total: 4 });

  assert.equal((await consumeAll(kafka, 'clients', 'metrics-reader', 8)).length, 8);
  const fetched = growth(produced, await scrape(metricsPort), ['brook_fetch_bytes_total']).brook_fetch_bytes_total;
  assert.equal(fetched, growth(start, produced, ['brook_produce_bytes_total']).brook_produce_bytes_total);
});

test('open connections counts the connections open now', async () => {
  const gauge = async () => (await scrape(metricsPort)).get('brook_open_connections');
  const base = (await gauge())!;
  const extra = await Promise.all([WireClient.connect(broker.port), WireClient.connect(broker.port)]);
  assert.equal(await gauge(), base + 2);
  extra[0]!.close();
  const deadline = Date.now() + 5000;
  while ((await gauge()) !== base + 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(await gauge(), base + 1);
  extra[1]!.close();
});

test('request latency is a histogram per API, labelled by the Kafka API name', async () => {
  await produceBatch(client, 'traced', 0, valuesBatch(1));
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  await admin.listTopics();
  await admin.disconnect();
  const samples = await scrape(metricsPort);
  for (const api of ['CreateTopics', 'Produce', 'ApiVersions', 'Metadata']) {
    const count = samples.get(`brook_request_duration_seconds_count{api="${api}"}`);
    assert.ok(count !== undefined && count > 0, api);
    assert.equal(samples.get(`brook_request_duration_seconds_bucket{le="+Inf",api="${api}"}`), count, api);
  }
});

test('brokers in one process keep separate metrics', async () => {
  const other = await startBroker({ metricsPort: 0 });
  try {
    const names = ['brook_produce_requests_total', ...OUTCOMES];
    const samples = await scrape(other.metricsPort!);
    assert.deepEqual(
      names.map((n) => samples.get(n)),
      [0, 0, 0, 0, 0],
    );
    assert.ok(((await scrape(metricsPort)).get('brook_produce_requests_total') ?? 0) > 0);
  } finally {
    await other.close();
  }
});

test('only GET /metrics is served', async () => {
  assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/`)).status, 404);
  assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { method: 'POST' })).status, 404);
});

test("the process's own metrics are there too: memory, CPU, open files, event-loop lag", async () => {
  const samples = await scrape(metricsPort);
  for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'process_open_fds', 'nodejs_eventloop_lag_seconds']) {
    assert.ok((samples.get(name) ?? 0) > 0, `${name} is reported`);
  }
});
