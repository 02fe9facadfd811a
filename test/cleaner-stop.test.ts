import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Storage } from '../src/log/storage.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { SWAP_STEPS, type SwapStep } from '../src/log/cleaner/swap-files.js';
import { fill, LONG_CLEANING_OPTIONS, stored, type Written } from './helpers/compacted-log.js';
import { closeAtEnd, producerView, tempDir } from './helpers/log.js';

const CHILD = fileURLToPath(new URL('./helpers/cleaner-child.ts', import.meta.url));
const TOPIC = 'table';
/** Tombstones go at once, so that one revived would show. */
const CONFIGS = { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0.01', 'delete.retention.ms': '0' };
/** Swaps after which the cleaning is stopped: from its first to near its last (it swaps some 27 groups of some two segments). */
const STOPS = [1, 4, 11, 19, 26];
/** Keys enough that the cleaned log takes many segments, so that a cleaning swaps many groups. */
const KEYS = 800;

interface Pristine {
  readonly dir: string;
  readonly written: readonly Written[];
  /** Where the segment being written begins: the cleaner leaves it as it is. */
  readonly activeBase: number;
  readonly producers: unknown[];
}

/** A data directory with one compacted partition of some 57 dirty segments, three producers' batches among them, closed. */
async function pristine(t: TestContext): Promise<Pristine> {
  const dir = await tempDir(t);
  const storage = await Storage.open(dir, LONG_CLEANING_OPTIONS);
  await storage.createTopic(TOPIC, 1, CONFIGS);
  const log = storage.partition(TOPIC, 0)!;
  const written = await fill(log, 1200, 11, Date.now() - 60_000, 3, KEYS);
  const activeBase = log.cleanable().end;
  const producers = producerView(log);
  await storage.close();
  return { dir, written, activeBase, producers };
}

/** A clean run's result: below the segment being written, each key's latest record unless a tombstone, at its offset; from there on, everything. */
function cleanRun({ written, activeBase }: Pristine): Written[] {
  const latest = new Map<string, Written>();
  for (const w of written) if (w.offset < activeBase) latest.set(w.key, w);
  const kept = [...latest.values()].filter((w) => w.value !== null);
  return [...kept, ...written.filter((w) => w.offset >= activeBase)].sort((a, b) => a.offset - b.offset);
}

async function copyOf(t: TestContext, source: Pristine): Promise<string> {
  const dir = await tempDir(t);
  await cp(source.dir, dir, { recursive: true });
  return dir;
}

/**
 * Restarts on `dir` and cleans until nothing is left to clean; then checks the records against a
 * clean run's, and the producer state a replay of the cleaned log alone rebuilds against the state
 * before any cleaning.
 */
async function assertFinished(t: TestContext, dir: string, source: Pristine, what: string): Promise<void> {
  const storage = closeAtEnd(t, await Storage.open(dir, LONG_CLEANING_OPTIONS));
  let cleanings = 0;
  while ((await storage.cleaner!.cleanOnce(Date.now())) !== undefined) cleanings++;
  assert.ok(cleanings > 0, `${what}: the restart cleans what the stopped cleaning left`);
  assert.deepEqual([...(await stored(storage.partition(TOPIC, 0)!)).values()], cleanRun(source), `${what}: the records of a clean run`);
  await storage.close();
  const partition = join(dir, `${TOPIC}-0`);
  const files = await readdir(partition);
  assert.deepEqual(
    files.filter((n) => n.endsWith('.cleaned') || n.endsWith('.swap')),
    [],
    `${what}: nothing of a cleaning is left`,
  );
  for (const name of files) if (name.endsWith('.snapshot')) await rm(join(partition, name));
  const replayed = closeAtEnd(t, await Storage.open(dir, LONG_CLEANING_OPTIONS));
  assert.deepEqual(producerView(replayed.partition(TOPIC, 0)!), source.producers, `${what}: the producers' windows are kept`);
  await replayed.close();
}

test('a clean run leaves each key once, at its latest offset, and the producer state a replay rebuilds', async (t) => {
  const source = await pristine(t);
  await assertFinished(t, await copyOf(t, source), source, 'a clean run');
});

/** Cleans a copy of the pristine log, shut down after swap `swaps` of its cleaning; the copy, and what the cleaning returned. */
async function stoppedCopy(t: TestContext, source: Pristine, swaps: number): Promise<{ dir: string; done: unknown }> {
  const dir = await copyOf(t, source);
  let stopping: Promise<void> | undefined;
  // The shutdown goes on beside the cleaning, as a broker's does.
  const afterSwap = (n: number): void => void (n === swaps && (stopping = storage.close()));
  const storage = closeAtEnd(t, await Storage.open(dir, { ...LONG_CLEANING_OPTIONS, cleaner: { ...LONG_CLEANING_OPTIONS.cleaner, afterSwap } }));
  const done = await storage.cleaner!.cleanOnce(Date.now());
  assert.ok(stopping !== undefined, `the cleaning got to swap ${swaps}`);
  await stopping;
  return { dir, done };
}

test('a cleaning stopped by a shutdown after any swap is recorded only as far as it got, and the next start finishes it', async (t) => {
  const source = await pristine(t);
  for (const swaps of STOPS) {
    const { dir, done } = await stoppedCopy(t, source, swaps);
    await assertFinished(t, dir, source, `stopped after swap ${swaps}`);
    assert.equal(done, undefined, `stopped after swap ${swaps}: not a finished cleaning`);
  }
});

test('a cleaning stopped by cleanup.policy dropping compact is recorded only as far as it got', async (t) => {
  const source = await pristine(t);
  const dir = await copyOf(t, source);
  // The cleaning waits for the change, made after its tenth swap.
  const afterSwap = (n: number): Promise<unknown> | undefined =>
    n === 10 ? storage.alterTopicConfigs(TOPIC, (c) => ({ ...c, 'cleanup.policy': 'delete' })) : undefined;
  const storage = closeAtEnd(t, await Storage.open(dir, { ...LONG_CLEANING_OPTIONS, cleaner: { ...LONG_CLEANING_OPTIONS.cleaner, afterSwap } }));
  assert.equal(await storage.cleaner!.cleanOnce(Date.now()), undefined, 'not a finished cleaning');
  await storage.alterTopicConfigs(TOPIC, () => CONFIGS);
  await storage.close();
  await assertFinished(t, dir, source, 'stopped by a config change');
});

/** Runs the cleaner child on `dir`, to be SIGKILLed after swap `swaps`, or after that step of it. */
function cleanThenKill(dir: string, swaps: number, step?: SwapStep): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, String(swaps), ...(step === undefined ? [] : [step])], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve();
      else reject(new Error(`the cleaner exited with ${code} before swap ${swaps}: ${stderr}`));
    });
  });
}

test('the cleaning that finishes a stopped one, kill -9ed after any swap, leaves what the next start finishes', { timeout: 120_000 }, async (t) => {
  const source = await pristine(t);
  for (const swaps of [1, 20]) {
    const { dir } = await stoppedCopy(t, source, 3);
    await cleanThenKill(dir, swaps);
    await assertFinished(t, dir, source, `stopped after swap 3, then killed after swap ${swaps}`);
  }
});

test('a cleaner kill -9ed after any swap leaves what the next start finishes: records and producer state of a clean run', { timeout: 120_000 }, async (t) => {
  const source = await pristine(t);
  for (const swaps of STOPS) {
    const dir = await copyOf(t, source);
    await cleanThenKill(dir, swaps);
    await assertFinished(t, dir, source, `killed after swap ${swaps}`);
  }
});

/** The offset after the last batch in the file at `path`. */
async function endOf(path: string): Promise<number> {
  const bytes = await readFile(path);
  let end = 0;
  for (let at = 0; at < bytes.length;) {
    const header = readBatchHeader(bytes, at);
    end = header.baseOffset + header.lastOffsetDelta + 1;
    at += header.size;
  }
  return end;
}

/** Restarts on `dir` without cleaning, then checks that each segment begins where the one before ends: none lies inside another. */
async function assertContiguous(t: TestContext, dir: string, what: string): Promise<void> {
  await closeAtEnd(t, await Storage.open(dir, LONG_CLEANING_OPTIONS)).close();
  const partition = join(dir, `${TOPIC}-0`);
  const logs = (await readdir(partition)).filter((n) => n.endsWith('.log')).sort();
  let end: number | undefined;
  for (const name of logs) {
    assert.equal(end ?? Number(name.slice(0, 20)), Number(name.slice(0, 20)), `${what}: segment ${name} begins where the one before ends`);
    end = await endOf(join(partition, name));
  }
}

test(
  'a cleaner kill -9ed inside the swap of a group of segments, at each step, leaves what the next start finishes or undoes',
  { timeout: 180_000 },
  async (t) => {
    const source = await pristine(t);
    // The cleaning's third swap replaces several segments.
    for (const swaps of [3]) {
      for (const step of SWAP_STEPS) {
        const dir = await copyOf(t, source);
        await cleanThenKill(dir, swaps, step);
        const partition = join(dir, `${TOPIC}-0`);
        const files = await readdir(partition);
        const copy = files.find((n) => n.endsWith('.log.swap') || n.endsWith('.log.cleaned'));
        assert.ok(copy !== undefined, `killed at ${step} of swap ${swaps}: the swap was under way`);
        if (step !== 'merged-deleted' && step !== 'index-replaced') {
          const base = copy.slice(0, 20);
          const next = files.find((n) => n.endsWith('.log') && n.slice(0, 20) > base)!;
          assert.ok(Number(next.slice(0, 20)) < (await endOf(join(partition, copy))), `killed at ${step} of swap ${swaps}: the swap replaces several segments`);
        }
        await assertContiguous(t, dir, `killed at ${step} of swap ${swaps}`);
        await assertFinished(t, dir, source, `killed at ${step} of swap ${swaps}`);
      }
    }
  },
);
