import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { appendAll, openLog, producerView, readAll, tempDir, type TestBatch } from './helpers/log.js';
import { KILL_TEST_OPTIONS, traffic } from './helpers/log-traffic.js';

const WRITER = fileURLToPath(new URL('./helpers/log-writer.ts', import.meta.url));

/** Runs the writer until it has `target` batches acknowledged, then SIGKILLs it; returns the count it acknowledged. */
function writeThenKill(dir: string, flush: string, target: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, flush], { stdio: ['ignore', 'pipe', 'pipe'] });
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

for (const flush of ['none', 'always'] as const) {
  test(`a writer SIGKILLed mid-traffic (flush ${flush}) comes back with every acknowledged batch and exact producer state`, { timeout: 60_000 }, async (t) => {
    const dir = await tempDir(t);
    const acked = await writeThenKill(dir, flush, flush === 'always' ? 1500 : 3000);
    const segments = (await readdir(dir)).filter((n) => n.endsWith('.log'));
    assert.ok(segments.length > 2, `traffic rolled segments (${segments.length})`);

    const log = await openLog(t, dir, KILL_TEST_OPTIONS);
    const stored = await readAll(log);
    assert.ok(stored.length >= acked, `${stored.length} batches stored, ${acked} acknowledged`);

    // The same traffic appended to a fresh log: the recovered log must hold exactly it, with the same producer state.
    const source = traffic();
    const expected: TestBatch[] = Array.from({ length: stored.length }, () => source.next().value!);
    const reference = await openLog(t, await tempDir(t));
    appendAll(reference, expected);
    assert.equal(log.logEndOffset, reference.logEndOffset);
    assert.deepEqual(
      stored,
      expected.map((b) => b.bytes),
    );
    assert.deepEqual(producerView(log), producerView(reference));
  });
}
