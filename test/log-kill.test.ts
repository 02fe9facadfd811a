import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { snapshotOffsets, snapshotPath } from '../src/log/partition-files.js';
import type { PartitionLog } from '../src/log/partition-log.js';
import { ProducerStates } from '../src/log/producer-states.js';
import { appendAll, openLog, producerView, readAll, tempDir, type TestBatch } from './helpers/log.js';
import { KILL_TEST_OPTIONS, traffic } from './helpers/log-traffic.js';

const WRITER = fileURLToPath(new URL('./helpers/log-writer.ts', import.meta.url));

/** Runs the writer (of traffic(producers)) until it has `target` batches acknowledged, then SIGKILLs it; returns the count it acknowledged. */
function writeThenKill(dir: string, flush: string, target: number, producers = 3): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, flush, String(producers)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acked = 0;
    let pending = '';
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.on('data', (b: Buffer) => {
      const lines = (pending + b.toString()).split('\n');
      pending = lines.pop()!;
      for (const line of lines) acked = Math.max(acked, Number(line));
      if (acked >= target && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`writer exited with ${code}: ${stderr}`));
    });
  });
}

/**
 * Opens what the writer left and checks it against the same traffic appended to a fresh log:
 * exactly those batches, every acknowledged one among them, and the same producer state.
 */
async function assertRecovered(t: TestContext, dir: string, acked: number, producers = 3): Promise<PartitionLog> {
  const segments = (await readdir(dir)).filter((n) => n.endsWith('.log'));
  assert.ok(segments.length > 2, `traffic rolled segments (${segments.length})`);

  const log = await openLog(t, dir, KILL_TEST_OPTIONS);
  const stored = await readAll(log);
  assert.ok(stored.length >= acked, `${stored.length} batches stored, ${acked} acknowledged`);

  const source = traffic(producers);
  const expected: TestBatch[] = Array.from({ length: stored.length }, () => source.next().value!);
  const reference = await openLog(t, await tempDir(t));
  appendAll(reference, expected);
  assert.equal(log.logEndOffset, reference.logEndOffset);
  assert.deepEqual(
    stored,
    expected.map((b) => b.bytes),
  );
  assert.deepEqual(producerView(log), producerView(reference));
  return log;
}

for (const flush of ['none', 'always'] as const) {
  test(`a writer SIGKILLed mid-traffic (flush ${flush}) comes back with every acknowledged batch and exact producer state`, { timeout: 60_000 }, async (t) => {
    const dir = await tempDir(t);
    await assertRecovered(t, dir, await writeThenKill(dir, flush, flush === 'always' ? 1500 : 3000));
  });
}

/** The state a snapshot holds, without write times, which depend on the run: by id. */
function stateView(states: ProducerStates): unknown[] {
  return [...states.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, e]) => [String(id), e.lastTimestamp, e.state]);
}

test('a writer of 3,000 producers SIGKILLed across rolls leaves only whole snapshots, each of the state at its offset', { timeout: 60_000 }, async (t) => {
  // Snapshots of 3,000 producers take two turns to encode, while appends go on.
  const producers = 3_000;
  const dir = await tempDir(t);
  const acked = await writeThenKill(dir, 'none', 24_000, producers);
  const snapshots = await snapshotOffsets(dir);
  assert.ok(snapshots.length > 0, 'snapshots were written');
  const loaded = new Map(
    await Promise.all(snapshots.map(async (offset) => [offset, ProducerStates.decode(await readFile(snapshotPath(dir, offset)), 0)] as const)),
  );

  // The same traffic replayed, compared with each snapshot as it reaches the snapshot's offset.
  const replayed = new ProducerStates();
  const source = traffic(producers);
  const last = Math.max(...snapshots);
  let checked = 0;
  for (let offset = 0; offset <= last;) {
    if (loaded.has(offset)) {
      const snapshot = loaded.get(offset);
      assert.ok(snapshot !== undefined, `the snapshot at ${offset} is whole`);
      assert.deepEqual(stateView(snapshot.states), stateView(replayed), `the snapshot at ${offset} holds the state there`);
      checked++;
    }
    const { header } = source.next().value!;
    replayed.replay(header, offset, 0);
    offset += header.recordCount;
  }
  assert.equal(checked, snapshots.length, 'every snapshot is at a batch boundary');

  const log = await assertRecovered(t, dir, acked, producers);
  assert.ok(log.recovery.snapshotOffset !== undefined, 'recovery started from a snapshot');
});
