/** --partition-memory-bytes: what all partitions keep in memory stays within it, and what they gave back is read from the files. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from '../src/broker/start-broker.js';
import { MemoryBudget } from '../src/memory/memory-budget.js';
import { consumeAll, kafkajs } from './helpers/kafkajs.js';
import { appendAll, batch, openLog, readAll, tempDir } from './helpers/log.js';
import { scrape } from './helpers/scrape.js';
import { until } from './helpers/until.js';
import { valuesBatch } from './helpers/batch.js';
import { fetchAllBatches, fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';
import { WireClient } from './helpers/wire-client.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { ErrorCode } from '../src/protocol/error-codes.js';

const BUDGET = 3 * 1024 * 1024;
const PARTITIONS = 40;
const ROUNDS = 3;

test('partitions written through the broker hold no more memory than the budget, and every record reads back', async () => {
  const broker = await startBroker({ metricsPort: 0, partitionMemoryBytes: BUDGET });
  const kafka = kafkajs(`127.0.0.1:${broker.port}`);
  const admin = kafka.admin();
  const producer = kafka.producer();
  try {
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'wide', numPartitions: PARTITIONS }] });
    await producer.connect();
    const held: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let p = 0; p < PARTITIONS; p++) {
        // About 200 KB a partition a round: each would keep three buffers of 256 KB without the budget.
        const messages = Array.from({ length: 20 }, (_, i) => ({ value: `${round}/${p}/${i}/`.padEnd(10_000, String.fromCharCode(97 + ((p + i) % 26))) }));
        await producer.send({ topic: 'wide', acks: -1, messages: messages.map((m) => ({ ...m, partition: p })) });
        held.push((await scrape(broker.metricsPort!)).get('brook_partition_memory_bytes')!);
      }
    }
    assert.ok(
      held.every((bytes) => bytes <= BUDGET),
      `held at most ${Math.max(...held)} bytes`,
    );
    assert.ok(
      held.some((bytes) => bytes > BUDGET / 2),
      'the budget is used',
    );
    const consumed = await consumeAll(kafka, 'wide', 'reader', PARTITIONS * ROUNDS * 20);
    for (let p = 0; p < PARTITIONS; p++) {
      const values = consumed.filter((c) => c.partition === p).sort((a, b) => a.offset - b.offset);
      const want = Array.from({ length: ROUNDS * 20 }, (_, k) =>
        `${Math.floor(k / 20)}/${p}/${k % 20}/`.padEnd(10_000, String.fromCharCode(97 + ((p + (k % 20)) % 26))),
      );
      assert.deepEqual(
        values.map((c) => c.value),
        want,
        `partition ${p} reads back in order`,
      );
      assert.deepEqual(
        values.map((c) => c.offset),
        want.map((_, k) => k),
      );
    }
  } finally {
    await producer.disconnect();
    await admin.disconnect();
    await broker.close();
  }
});

test('an idle partition gives all its memory back and serves the same batches from its files', async (t) => {
  const memory = new MemoryBudget(Infinity);
  memory.startSweeping(1000);
  t.after(() => memory.stopSweeping());
  const log = await openLog(t, await tempDir(t), { memory });
  const batches = Array.from({ length: 30 }, (_, i) => batch(50, {}, `idle-${i}-`));
  log.noteRead(); // a consumer at the end of the log: its tail cache fills
  appendAll(log, batches);
  await log.whenWritten(log.logEndOffset - 1);
  const fromMemory = await readAll(log);
  assert.ok(memory.usedBytes > 0, 'the tail cache and staging buffers hold memory while in use');
  await until(() => memory.usedBytes === 0, 'the idle partition gave its memory back', 10_000);
  assert.deepEqual(await readAll(log), fromMemory, 'read back from the files as from memory');
  assert.deepEqual(
    fromMemory,
    batches.map((b) => b.bytes),
    'and as appended',
  );
  appendAll(log, [batch(3, {}, 'after-')]);
  await log.whenWritten(log.logEndOffset - 1);
  assert.equal((await readAll(log)).length, 31, 'and it takes and serves new batches after');
});

test('a partition only written keeps no tail cache; one a consumer fetches, even waiting at its end, keeps its newest batches', async () => {
  const broker = await startBroker({ metricsPort: 0 });
  const producer = await WireClient.connect(broker.port);
  const consumer = await WireClient.connect(broker.port);
  try {
    const held = async (): Promise<number> => (await scrape(broker.metricsPort!)).get('brook_partition_memory_bytes')!;
    for (const topic of ['written', 'fetched']) await createTopic(producer, topic, 1);
    const written = Array.from({ length: 30 }, (_, i) => valuesBatch(50, {}, `tail-${i}-`));
    const bytes = written.reduce((sum, b) => sum + b.length, 0);
    const produceAll = async (topic: string): Promise<number> => {
      const before = await held();
      for (const records of written) assert.equal((await produceBatch(producer, topic, 0, records)).errorCode, ErrorCode.NONE);
      return (await held()) - before;
    };
    const unread = await produceAll('written');
    // A consumer caught up with the empty partition: its fetch waits at the end of the log and reads nothing.
    const waited = await consumer.request(FetchRequest, FetchResponse, 12, fetchOf('fetched', [0], { offset: 0, maxWaitMs: 10 }));
    assert.equal(waited.responses[0]!.partitions[0]!.records?.length ?? 0, 0);
    const read = await produceAll('fetched');
    assert.ok(
      read - unread >= bytes,
      `the fetched partition took ${read} bytes, the written one ${unread}: the ${bytes} bytes written are cached only where fetched`,
    );
    for (const topic of ['written', 'fetched']) {
      assert.deepEqual(
        (await fetchAllBatches(consumer, topic, 0)).map((b) => b.subarray(61)),
        written.map((b) => b.subarray(61)),
        `${topic}: every batch served as produced`,
      );
    }
  } finally {
    producer.close();
    consumer.close();
    await broker.close();
  }
});
