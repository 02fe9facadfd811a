/** What DescribeLogDirs reports of the data directory: each partition's segment bytes and the file system's room. */
import { readdir, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { parseOffsetFileName } from './segment.js';

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * The bytes of a partition directory's segment files, as Kafka's `UnifiedLog.size` counts a log's size (indexes and
 * snapshots aside); undefined once the directory is gone (its topic deleted meanwhile).
 */
export async function segmentBytes(dir: string): Promise<number | undefined> {
  return (await segmentUsage(dir))?.bytes;
}

/** How many segment files a partition directory holds and their bytes; undefined once it is gone. */
export async function segmentUsage(dir: string): Promise<{ segments: number; bytes: number } | undefined> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  const sizes = await Promise.all(
    names
      .filter((name) => parseOffsetFileName(name, '.log') !== undefined)
      // A segment retention removes meanwhile counts for nothing.
      .map((name) =>
        stat(join(dir, name)).then(
          (s) => s.size,
          (err: unknown) => (isMissing(err) ? 0 : Promise.reject(err)),
        ),
      ),
  );
  return { segments: sizes.length, bytes: sizes.reduce((sum, size) => sum + size, 0) };
}

/** The file system's size and the bytes an unprivileged writer may still use, as Java's FileStore reports them. */
export async function fileSystemSpace(dir: string): Promise<{ totalBytes: number; usableBytes: number }> {
  const s = await statfs(dir);
  return { totalBytes: s.blocks * s.bsize, usableBytes: s.bavail * s.bsize };
}
