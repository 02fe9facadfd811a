import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { startBroker } from '../src/broker/start-broker.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { recordsOf } from './helpers/compacted-log.js';
import { buildBatch } from './helpers/batch.js';
import { consumeAll, kafkajs } from './helpers/kafkajs.js';
import { closeAtEnd, tempDir } from './helpers/log.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchAllBatches } from './helpers/wire-fetch.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

/**
 * The offsets of partition 0's records once fewer than `below` and no longer changing: the
 * cleaner ran while the records were produced, and may run again once after.
 */
async function compacted(client: WireClient, topic: string, below: number): Promise<number[]> {
  let offsets: number[] = [];
  await until(async () => {
    const before = offsets;
    offsets = (await fetchAllBatches(client, topic, 0)).flatMap((b) => recordsOf(b).map((r) => r.offset));
    await sleep(200);
    return offsets.length < below && before.join() === offsets.join();
  }, 'the cleaner has compacted the topic');
  return offsets;
}

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
  const count = (await compacted(client, 'table', total / 2)).length;

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

test('ListOffsets by time on a compacted topic answers the first record kept at or after the time; the log start and end stay', async (t) => {
  const broker = closeAtEnd(t, await startBroker({ port: 0, dataDir: await tempDir(t), cleanerBackoffMs: 20 }));
  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  await createTopic(client, 'timed', 1, { 'cleanup.policy': 'compact', 'segment.bytes': '1024', 'min.cleanable.dirty.ratio': '0.01' });
  const t0 = Date.now() - 1_000_000;
  // Batch i at time t0 + 1000 i, with keys of seven, so that most records are compacted away.
  for (let i = 0; i < 200; i++) {
    const records = [0, 1].map((j) => ({ key: Buffer.from(`k${(i * 3 + j) % 7}`), value: Buffer.from(`v${i}`) }));
    assert.equal((await produceBatch(client, 'timed', 0, buildBatch(records, { baseTimestamp: t0 + 1000 * i }))).errorCode, 0);
  }
  const offsets = await compacted(client, 'timed', 100);
  const listed = async (timestamp: bigint): Promise<{ offset: number; timestamp: number }> => {
    const res = await client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: 'timed', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }] }],
      timeoutMs: 0,
    });
    const p = res.topics[0]!.partitions[0]!;
    return { offset: Number(p.offset), timestamp: Number(p.timestamp) };
  };
  assert.deepEqual([(await listed(-2n)).offset, (await listed(-1n)).offset], [0, 400], 'the log start and end');
  for (let i = 0; i < 200; i += 3) {
    // Offset 2i is batch i's first record; the first kept at or after it has batch ⌊o/2⌋'s time.
    const first = offsets.find((o) => o >= 2 * i)!;
    assert.deepEqual(await listed(BigInt(t0 + 1000 * i)), { offset: first, timestamp: t0 + 1000 * Math.floor(first / 2) }, `by the time of batch ${i}`);
  }
});
