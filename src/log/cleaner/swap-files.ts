/**
 * Swapping a cleaned segment's files in for the adjacent segments it replaces (one, or several
 * that cleaning made small enough to share a segment, as Kafka's LogCleaner.groupSegmentsBySize
 * groups them), so that a stop at any moment leaves one or the other, never a mix, as Kafka's
 * `.cleaned` and `.swap` files do (`LocalLog.replaceSegments`):
 *
 *   1. the cleaned copy is written and fsynced as `<base>.log.cleaned` and `<base>.index.cleaned`,
 *      `<base>` the first replaced segment's base offset;
 *   2. its index is renamed `<base>.index.swap`, then its log `<base>.log.swap`: the commit point;
 *   3. the other replaced segments' files are deleted; then `<base>.index.swap` replaces
 *      `<base>.index`, and `<base>.log.swap` replaces `<base>.log`.
 *
 * At start (finishSwaps), a `<base>.log.swap` is past the commit point: its swap is finished.
 * The segments it replaces are those it covers, from `<base>` to where its batches end (the
 * cleaning keeps the last batch of what it replaces, so that the next segment begins there).
 * Anything else of a cleaning, `.cleaned` files or an index `.swap` without its log, is dropped,
 * leaving the segments as they were.
 */
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from '../../files/durable-file.js';
import { scanBatches } from '../batch-file.js';
import { offsetFileName, parseOffsetFileName } from '../segment.js';

export const CLEANED = '.cleaned';
const SWAP = '.swap';

function names(base: number): { log: string; index: string } {
  return { log: offsetFileName(base, '.log'), index: offsetFileName(base, '.index') };
}

/**
 * Deletes the file, if there is one. Not fs.promises.rm, whose checks before the unlink take the
 * calling thread's time, which thousands of small segments make long.
 */
export async function removeFile(path: string): Promise<void> {
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

/** The points of a swap a fault hook may stop it at, in order: the second is its commit point. */
export const SWAP_STEPS = ['index-to-swap', 'log-to-swap', 'merged-deleted', 'index-replaced'] as const;
export type SwapStep = (typeof SWAP_STEPS)[number];

/** A hook for tests, called after each step of a swap (and awaited): a test kills the process there. */
export type SwapStepHook = (step: SwapStep) => void | Promise<unknown>;

/** Steps 2 and 3, once the cleaned files replacing the segments at `bases` (adjacent, oldest first) are fsynced. */
export async function swapInCleaned(dir: string, bases: readonly number[], atStep?: SwapStepHook): Promise<void> {
  const [base, ...merged] = bases;
  const { log, index } = names(base!);
  await rename(join(dir, index + CLEANED), join(dir, index + SWAP));
  await atStep?.('index-to-swap');
  await rename(join(dir, log + CLEANED), join(dir, log + SWAP));
  await syncDir(dir);
  await atStep?.('log-to-swap');
  await replaceWithSwap(dir, base!, merged, atStep);
}

async function replaceWithSwap(dir: string, base: number, merged: readonly number[], atStep?: SwapStepHook): Promise<void> {
  const { log, index } = names(base);
  if (merged.length > 0) {
    await Promise.all(merged.flatMap((b) => Object.values(names(b)).map((n) => removeFile(join(dir, n)))));
    // Gone before the swap takes its name, so that no stop leaves a segment inside another.
    await syncDir(dir);
  }
  await atStep?.('merged-deleted');
  await rename(join(dir, index + SWAP), join(dir, index)).catch((err: NodeJS.ErrnoException) => {
    // Renamed already, by a swap a stop interrupted after this step.
    if (err.code !== 'ENOENT') throw err;
  });
  await atStep?.('index-replaced');
  await rename(join(dir, log + SWAP), join(dir, log));
  await syncDir(dir);
}

/** Where the batches of the file at `path` end: the offset after its last. */
async function endOffset(path: string, base: number): Promise<number> {
  const file = await open(path, 'r');
  try {
    let end = base;
    const { size } = await file.stat();
    await scanBatches(file, { from: 0, to: size, verify: false }, (header) => {
      end = header.baseOffset + header.lastOffsetDelta + 1;
    });
    return end;
  } finally {
    await file.close();
  }
}

/** Finishes the swaps in `dir` (whose file names are `files`) past their commit point and drops what other cleanings left. */
export async function finishSwaps(dir: string, files: readonly string[]): Promise<void> {
  const committed = files.flatMap((n) => parseOffsetFileName(n, '.log' + SWAP) ?? []);
  const segments = files.flatMap((n) => parseOffsetFileName(n, '.log') ?? []);
  for (const base of committed) {
    const end = await endOffset(join(dir, offsetFileName(base, '.log' + SWAP)), base);
    await replaceWithSwap(
      dir,
      base,
      segments.filter((b) => b > base && b < end),
    );
  }
  const leftovers = files.filter((n) => n.endsWith(CLEANED) || (n.endsWith('.index' + SWAP) && !committed.includes(parseOffsetFileName(n, '.index' + SWAP)!)));
  await Promise.all(leftovers.map((n) => removeFile(join(dir, n))));
}

/** Whether brook writes files of this name while cleaning. */
export function isCleaningFileName(name: string): boolean {
  return ['.log', '.index'].some(
    (suffix) => parseOffsetFileName(name, suffix + CLEANED) !== undefined || parseOffsetFileName(name, suffix + SWAP) !== undefined,
  );
}
