import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from '../src/broker/start-broker.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { consumeAll, kafkajs } from './helpers/kafkajs.js';
import { closeAtEnd, tempDir } from './helpers/log.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchAllBatches } from './helpers/wire-fetch.js';

test('kafkajs: keyed records to a compacted topic read back, once cleaned, as the latest of each key at the offsets they were written at', async (t) => {
  const broker = closeAtEnd(t, await startBroker({ port: 0, dataDir: await tempDir(t), cleanerBackoffMs: 20 }));
  const kafka = kafkajs(broker.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  const configEntries = [
    { name: 'cleanup.policy', value: 'compact' },
    { name: 'segment.bytes', value: '2048' },
    { name: 'min.cleanable.dirty.ratio', value: '0.01' },
  ];
  assert.equal(await admin.createTopics({ topics: [{ topic: 'table', numPartitions: 1, configEntries }] }), true);
  await admin.disconnect();

  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  const written = new Map<string, { value: string; offset: number }>();
  // Every value is written once: where, and with which key.
  const keyOf = new Map<string, string>();
  const offsetOf = new Map<string, number>();
  let total = 0;
  for (let round = 0; round < 20; round++) {
    const messages = Array.from({ length: 10 }, (_, k) => ({ key: `key-${(k * 7 + round) % 25}`, value: `value-${round}-${k}` }));
    const [meta] = await producer.send({ topic: 'table', messages });
    messages.forEach((m, i) => {
      written.set(m.key, { value: m.value, offset: Number(meta!.baseOffset) + i });
      keyOf.set(m.value, m.key);
      offsetOf.set(m.value, Number(meta!.baseOffset) + i);
    });
    total += messages.length;
  }
  await producer.disconnect();

  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  const stored = async (): Promise<number> => (await fetchAllBatches(client, 'table', 0)).reduce((n, b) => n + readBatchHeader(b).recordCount, 0);
  await until(async () => (await stored()) < total / 2, 'the cleaner has compacted the topic');
  const count = await stored();

  const read = await consumeAll(kafkajs(broker.bootstrap, 'reader'), 'table', 'readers', count);
  assert.equal(read.length, count);
  const offsets = read.map((r) => r.offset);
  assert.deepEqual(
    offsets,
    [...offsets].sort((a, b) => a - b),
    'in offset order, across the gaps',
  );
  const latest = new Map<string, { value: string; offset: number }>();
  for (const r of read) {
    const key = keyOf.get(r.value);
    assert.ok(key !== undefined && offsetOf.get(r.value) === r.offset, `${r.value} at ${r.offset} is a record written there`);
    latest.set(key, { value: r.value, offset: r.offset });
  }
  assert.deepEqual(latest, written, "each key's latest record, at its offset");
});
