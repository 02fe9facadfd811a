/**
 * A transaction open across a broker restart, as an application sees it: librdkafka's
 * transactional producer (confluent-kafka) writes 100 records, the broker stops (SIGTERM, or
 * SIGKILL) and comes back on the same port and data directory, the producer writes 100 more in
 * the same transaction and commits; read_committed sees all 200, each once.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { kafkajs } from '../helpers/kafkajs.js';
import { LineProcess } from '../helpers/line-process.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { TRANSACTION_PROFILES } from '../helpers/transaction-profiles.js';
import { until } from '../helpers/until.js';

const COUNT = 100;

async function readCommitted(bootstrap: string, topic: string, count: number): Promise<string[]> {
  const consumer = kafkajs(bootstrap).consumer({ groupId: `check-${topic}`, readUncommitted: false, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value!.toString()) });
  try {
    await until(() => values.length >= count, `${count} records read`, 60_000);
    // Long enough for a duplicate to show up.
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    await consumer.disconnect();
  }
  return values.sort();
}

for (const { protocol, kafkaVersion } of TRANSACTION_PROFILES) {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    test(`transactions ${protocol}: confluent-kafka: a transaction open across a broker stopped with ${signal} commits, and read_committed sees all ${2 * COUNT}`, (t) =>
      openAcrossRestart(t, signal, ['--partitions', '2', '--kafka-version', kafkaVersion]));
  }
}

async function openAcrossRestart(t: TestContext, signal: 'SIGTERM' | 'SIGKILL', serveArgs: readonly string[]): Promise<void> {
  let serve: ServeProcess = await startServe([...serveArgs]);
  const { port, bootstrap, dataDir } = serve;
  const producer = LineProcess.python<{ written?: number; committed?: number }>('confluent_txn_across_restart.py', [bootstrap, 'across', 'txn-across', COUNT]);
  t.after(async () => {
    producer.kill();
    await serve.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });
  await producer.until((lines) => lines.some((l) => l.written === COUNT), 'the first records written');
  await serve.stop(signal);
  serve = await startServe(['--port', String(port), ...serveArgs], dataDir);
  assert.deepEqual(await producer.finish(), { committed: 2 * COUNT });
  const expected = Array.from({ length: 2 * COUNT }, (_, i) => `r-${String(i).padStart(4, '0')}`);
  assert.deepEqual(await readCommitted(bootstrap, 'across', 2 * COUNT), expected);
}
