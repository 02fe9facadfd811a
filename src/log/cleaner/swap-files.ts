/**
 * Swapping a cleaned segment's files in for the segment's own, so that a stop at any moment
 * leaves one or the other, never a mix, as Kafka's `.cleaned` and `.swap` files do (`LocalLog.replaceSegments`):
 *
 *   1. the cleaned copy is written and fsynced as `<base>.log.cleaned` and `<base>.index.cleaned`;
 *   2. its index is renamed `<base>.index.swap`, then its log `<base>.log.swap`: the commit point;
 *   3. `<base>.index.swap` replaces `<base>.index`, then `<base>.log.swap` replaces `<base>.log`.
 *
 * At start (finishSwaps), a `<base>.log.swap` is past the commit point: its swap is finished.
 * Anything else of a cleaning, `.cleaned` files or an index `.swap` without its log, is dropped,
 * leaving the segment as it was.
 */
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from '../../files/durable-file.js';
import { offsetFileName, parseOffsetFileName } from '../segment.js';

export const CLEANED = '.cleaned';
const SWAP = '.swap';

function names(base: number): { log: string; index: string } {
  return { log: offsetFileName(base, '.log'), index: offsetFileName(base, '.index') };
}

/** Steps 2 and 3, once the cleaned files of segment `base` are fsynced. */
export async function swapInCleaned(dir: string, base: number): Promise<void> {
  const { log, index } = names(base);
  await rename(join(dir, index + CLEANED), join(dir, index + SWAP));
  await rename(join(dir, log + CLEANED), join(dir, log + SWAP));
  await syncDir(dir);
  await replaceWithSwap(dir, base);
}

async function replaceWithSwap(dir: string, base: number): Promise<void> {
  const { log, index } = names(base);
  await rename(join(dir, index + SWAP), join(dir, index)).catch((err: NodeJS.ErrnoException) => {
    // Renamed already, by a swap a stop interrupted after this step.
    if (err.code !== 'ENOENT') throw err;
  });
  await rename(join(dir, log + SWAP), join(dir, log));
  await syncDir(dir);
}

/** Finishes the swaps in `dir` (whose file names are `files`) past their commit point and drops what other cleanings left. */
export async function finishSwaps(dir: string, files: readonly string[]): Promise<void> {
  const committed = files.flatMap((n) => parseOffsetFileName(n, '.log' + SWAP) ?? []);
  for (const base of committed) await replaceWithSwap(dir, base);
  const leftovers = files.filter((n) => n.endsWith(CLEANED) || (n.endsWith('.index' + SWAP) && !committed.includes(parseOffsetFileName(n, '.index' + SWAP)!)));
  await Promise.all(leftovers.map((n) => rm(join(dir, n), { force: true })));
}

/** Whether brook writes files of this name while cleaning. */
export function isCleaningFileName(name: string): boolean {
  return ['.log', '.index'].some(
    (suffix) => parseOffsetFileName(name, suffix + CLEANED) !== undefined || parseOffsetFileName(name, suffix + SWAP) !== undefined,
  );
}
