/**
 * Exactly-once from consume to produce with librdkafka's transactional producer (confluent-kafka):
 * a transform loop over 20,000 inputs, some of whose transactions abort on purpose, is killed with
 * SIGKILL and restarted three times, and so is the broker, at points spread over the run; the output
 * read with read_committed holds every input exactly once, and the group's committed offsets are the
 * inputs' ends.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { kafkajs } from '../helpers/kafkajs.js';
import { LineProcess } from '../helpers/line-process.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { TRANSACTION_PROFILES } from '../helpers/transaction-profiles.js';
import { until } from '../helpers/until.js';

interface TransformLine {
  readonly committed?: number;
  readonly aborted?: number;
}

const INPUTS = 20_000;
const PARTITIONS = 2;
/** Records per transaction at most: large enough that the run stays short. */
const BATCH = 500;
/** What is killed with SIGKILL, in turn, each once a further share of the inputs is committed. */
const KILLS = ['transformer', 'broker', 'transformer', 'broker', 'both'] as const;

async function readCommitted(bootstrap: string, topic: string, count: number): Promise<string[]> {
  const consumer = kafkajs(bootstrap).consumer({ groupId: `check-${Date.now()}`, readUncommitted: false, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value!.toString()) });
  try {
    await until(() => values.length >= count, `${count} outputs read`, 60_000);
    // Long enough for a duplicate to show up.
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    await consumer.disconnect();
  }
  return values;
}

for (const { protocol, kafkaVersion } of TRANSACTION_PROFILES) {
  test(`transactions ${protocol}: confluent-kafka consume-transform-produce over 20,000 inputs, transformer and broker each killed -9 three times: every input exactly once`, (t) =>
    transformUnderKills(t, ['--partitions', String(PARTITIONS), '--kafka-version', kafkaVersion]));
}

async function transformUnderKills(t: TestContext, serveArgs: readonly string[]): Promise<void> {
  let serve: ServeProcess = await startServe([...serveArgs]);
  const port = serve.port;
  const bootstrap = serve.bootstrap;
  const dataDir = serve.dataDir;
  const transformers: LineProcess<TransformLine>[] = [];
  t.after(async () => {
    for (const p of transformers) p.kill();
    await serve.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });
  const kafka = kafkajs(bootstrap);
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  const inputs = Array.from({ length: INPUTS }, (_, i) => `in-${i}`);
  for (let i = 0; i < INPUTS; i += 2000) {
    await producer.send({ topic: 'tx-in', messages: inputs.slice(i, i + 2000).map((value, j) => ({ partition: (i + j) % PARTITIONS, value })) });
  }
  await producer.disconnect();
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'tx-out', numPartitions: PARTITIONS }] });
  await admin.disconnect();

  const start = (): LineProcess<TransformLine> => {
    const p = LineProcess.python<TransformLine>('confluent_transform.py', [bootstrap, 'tx-in', 'tx-out', 'transform-group', 'transformer', 4, BATCH], 240_000);
    transformers.push(p);
    return p;
  };
  /** Inputs the transformers reported committed: fewer than were, when one died between commit and report. */
  const committed = () => transformers.flatMap((p) => p.lines).reduce((sum, l) => sum + (l.committed ?? 0), 0);
  // Whatever ends the transformer (a kill, or being fenced or cut off by the broker's restart), one is started again.
  let current = start();
  let done = false;
  const supervising = (async () => {
    while (!done) {
      await until(() => done || !current.running, 'the transformer ends', 120_000);
      if (!done) current = start();
    }
  })();
  for (const [i, kill] of KILLS.entries()) {
    const share = Math.floor(((i + 1) * INPUTS) / (KILLS.length + 1));
    await until(() => committed() >= share, `${share} inputs committed`, 60_000);
    if (kill !== 'broker') current.kill();
    if (kill !== 'transformer') {
      await serve.stop('SIGKILL');
      serve = await startServe(['--port', String(port), ...serveArgs], dataDir);
    }
  }
  const read = await readCommitted(bootstrap, 'tx-out', INPUTS);
  done = true;
  await supervising;
  assert.equal(read.length, INPUTS, 'no output twice');
  assert.deepEqual(read.sort(), inputs.map((v) => v.toUpperCase()).sort());
  assert.ok(
    transformers.flatMap((p) => p.lines).some((l) => l.aborted !== undefined),
    'some transactions aborted on purpose',
  );
  const offsets = await (async () => {
    const a = kafkajs(serve.bootstrap).admin();
    await a.connect();
    try {
      return await a.fetchOffsets({ groupId: 'transform-group', topics: ['tx-in'] });
    } finally {
      await a.disconnect();
    }
  })();
  assert.deepEqual(
    offsets[0]!.partitions.map((p) => [p.partition, p.offset]).sort(),
    Array.from({ length: PARTITIONS }, (_, p) => [p, String(INPUTS / PARTITIONS)]),
  );
  await current.finish();
}
