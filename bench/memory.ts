/** Memory per idempotent producer state, against the raw size of the numbers a state holds. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WINDOW_SIZE } from '../src/idempotence/rules.js';
import { compared, fmt, type Row } from './table.js';

const PROBE = fileURLToPath(new URL('memory-probe.ts', import.meta.url));

/** Producer id, epoch and last timestamp, and (firstSeq, lastSeq, baseOffset) per window entry: 8 bytes each. */
const rawBytes = (windowEntries: number): number => 8 * (3 + 3 * windowEntries);

function bytesPerState(producers: number, batches: number): number {
  // A child of its own: --expose-gc, and a heap nothing else in this run has touched. execArgv
  // carries the TypeScript loader this runner was started with.
  const r = spawnSync(process.execPath, [...process.execArgv, '--expose-gc', PROBE, String(producers), String(batches)]);
  if (r.status !== 0) throw new Error(`memory-probe failed: ${r.stderr.toString()}`);
  return (JSON.parse(r.stdout.toString()) as { bytesPerState: number }).bytesPerState;
}

export function memoryBench(smoke: boolean): Row[] {
  const producers = smoke ? 10_000 : 300_000;
  return [WINDOW_SIZE, 1].map((batches) =>
    compared(
      `memory per producer state (heap and typed arrays), ${fmt(producers)} states, ${batches}-batch window (bytes)`,
      bytesPerState(producers, batches),
      rawBytes(batches),
      `raw: ${3 + 3 * batches} numbers × 8 bytes`,
    ),
  );
}
