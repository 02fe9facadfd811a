/**
 * `brook serve --fault` against librdkafka (confluent-kafka): each action from the command line,
 * what is stored read back with kcat, the metrics and log lines that tell what was done.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { readTopic, tally, describeTally, type Placed } from '../helpers/exactly-once.js';
import { LineProcess } from '../helpers/line-process.js';
import { scrape, type Samples } from '../helpers/scrape.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { until } from '../helpers/until.js';

const PARTITIONS = 4;

async function serve(t: TestContext, faults: readonly string[]): Promise<{ serve: ServeProcess; metrics: () => Promise<Samples> }> {
  const s = await startServe(['--partitions', String(PARTITIONS), '--metrics-port', '0', ...faults.flatMap((f) => ['--fault', f])]);
  t.after(async () => {
    await s.stop('SIGKILL');
    await rm(s.dataDir, { recursive: true, force: true });
  });
  // The log line naming the metrics port may come after the plain listening line.
  const metricsLine = /metrics on http:\/\/[^\s]*:(\d+)\/metrics/;
  await until(() => metricsLine.test(s.output()), 'the metrics port is logged');
  const metricsPort = Number(metricsLine.exec(s.output())![1]);
  return { serve: s, metrics: () => scrape(metricsPort) };
}

interface PacedLine {
  readonly acked: number | Placed[];
  readonly errors?: string[];
}

/** librdkafka's idempotent producer sends `count` messages over the partitions; where each was acknowledged. */
async function produce(bootstrap: string, topic: string, count: number): Promise<Placed[]> {
  const last = await LineProcess.python<PacedLine>('confluent_produce_paced.py', [bootstrap, topic, PARTITIONS, count], 200_000).finish();
  assert.deepEqual(last.errors, []);
  return last.acked as Placed[];
}

const fired = (samples: Samples, api: string, action: string): number => samples.get(`brook_faults_fired_total{api="${api}",action="${action}"}`) ?? 0;

test('librdkafka: a dropped answer is retried, its record stored once, the retry counted as one duplicate', { timeout: 60_000 }, async (t) => {
  const { serve: s, metrics } = await serve(t, ['Produce,topic=paid,dropResponse,count=1']);
  const acked = await produce(s.bootstrap, 'paid', 1);
  const counts = tally(acked, await readTopic(s.bootstrap, 'paid'));
  assert.deepEqual([counts.acked, counts.read, counts.duplicates, counts.losses], [1, 1, 0, 0], describeTally(counts));
  const samples = await metrics();
  assert.equal(samples.get('brook_idempotent_batches_duplicate_total'), 1);
  assert.equal(fired(samples, 'Produce', 'dropResponse'), 1);
  assert.match(s.output(), /"api":"Produce","action":"dropResponse".*"msg":"fault: handled a Produce request, dropped its answer and closed the connection"/);
});

test('librdkafka: a retriable error twice, a slow answer and a closed connection; each message stored once', { timeout: 60_000 }, async (t) => {
  const { serve: s, metrics } = await serve(t, [
    'api=Produce,topic=moved,partition=1,error=NOT_LEADER_OR_FOLLOWER,count=2',
    'Produce,topic=moved,delayMs=300,count=1',
    'Produce,topic=moved,closeConnection,count=1',
  ]);
  const acked = await produce(s.bootstrap, 'moved', 40);
  const counts = tally(acked, await readTopic(s.bootstrap, 'moved'));
  assert.deepEqual([counts.acked, counts.read, counts.duplicates, counts.losses, counts.misplaced], [40, 40, 0, 0, 0], describeTally(counts));
  const samples = await metrics();
  assert.deepEqual(
    ['error', 'delayMs', 'closeConnection'].map((action) => fired(samples, 'Produce', action)),
    [2, 1, 1],
  );
});

test('librdkafka: 5% of Produce answers dropped, as a learner would run it; every message stored once, the retries caught', { timeout: 180_000 }, async (t) => {
  const { serve: s, metrics } = await serve(t, ['Produce,dropResponse,probability=5%,seed=7']);
  const acked = await produce(s.bootstrap, 'flaky', 4000);
  const counts = tally(acked, await readTopic(s.bootstrap, 'flaky'));
  t.diagnostic(describeTally(counts));
  assert.deepEqual([counts.acked, counts.duplicates, counts.losses, counts.misplaced], [4000, 0, 0, 0], describeTally(counts));
  const samples = await metrics();
  const dropped = fired(samples, 'Produce', 'dropResponse');
  t.diagnostic(`answers dropped: ${dropped}; duplicates caught: ${samples.get('brook_idempotent_batches_duplicate_total')}`);
  // How many Produce requests carry the 4,000 messages, and so how many answers 5% is, depends on
  // how librdkafka batches under the machine's load: the fault must have acted, at least once.
  assert.ok(dropped >= 1, `answers dropped: ${dropped}`);
  assert.ok((samples.get('brook_idempotent_batches_duplicate_total') ?? 0) >= 1, 'retries of written batches were caught as duplicates');
});
