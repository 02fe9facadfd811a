/**
 * The move of an earlier brook's files into an internal topic, once, so that a kill at any point
 * leaves the old form or the new. The marker file is the commit point: before it, `move` may run
 * again from the start (it leaves the same state however often it runs, by emptying the topic
 * first or by writing the same records again, and fsyncs what it wrote before returning); once
 * it is written, only the old files' removal is left, and the marker goes last. A start that finds
 * the marker only finishes the removal.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileIfExists, syncDir, writeFileDurably } from './durable-file.js';

export interface FilesToMove {
  /** The marker file's name in the directory. */
  readonly marker: string;
  /** The old files' names now in the directory (none once moved). */
  oldFiles(): Promise<readonly string[]>;
  /** Writes the old files' state into the topic, the same however often it runs, and resolves once it is fsynced. */
  move(): Promise<void>;
}

/** Moves the files if there are any, or finishes the removal a kill cut short. */
export async function moveOnce(dir: string, files: FilesToMove): Promise<void> {
  const marker = join(dir, files.marker);
  const marked = (await readFileIfExists(marker)) !== undefined;
  if (!marked) {
    if ((await files.oldFiles()).length === 0) return;
    await files.move();
    await writeFileDurably(marker, '');
  }
  for (const name of [...(await files.oldFiles()), `${files.marker}.tmp`]) await rm(join(dir, name), { force: true });
  await syncDir(dir);
  await rm(marker);
  await syncDir(dir);
}
