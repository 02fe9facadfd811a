/**
 * The files committed offsets are kept in, in the data directory, numbered by generation:
 *
 *   group-offsets-<g>.snapshot  every group's offsets as they were when log g was started,
 *                               written whole (temporary file, fsync, rename, directory fsync)
 *   group-offsets-<g>.log       the changes since, appended
 *
 * The state is the newest snapshot followed by the logs of its generation and after, in order
 * (a crash during compaction leaves the log before the snapshot it was writing: the older
 * snapshot and both logs hold everything). Older files are deleted once a snapshot is in place.
 */
import { open, readdir, readFile, rename, rm, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from '../files/durable-file.js';
import { encodeRecord, scanRecords } from './offset-records.js';
import { commitOf, type GroupOffsets, type OffsetState } from './offset-state.js';

export const logName = (generation: number): string => `group-offsets-${generation}.log`;
export const snapshotName = (generation: number): string => `group-offsets-${generation}.snapshot`;
const FILE_NAME = /^group-offsets-(\d{1,15})\.(log|snapshot)(\.tmp)?$/;

/** Snapshot bytes encoded before they are written, letting the event loop run in between. */
const SNAPSHOT_CHUNK = 256 * 1024;

export interface OffsetFiles {
  readonly snapshots: readonly number[];
  readonly logs: readonly number[];
  /** Snapshots a crash or stop left half written. */
  readonly temporary: readonly string[];
}

export async function listOffsetFiles(dir: string): Promise<OffsetFiles> {
  const snapshots: number[] = [];
  const logs: number[] = [];
  const temporary: string[] = [];
  for (const name of await readdir(dir)) {
    const m = FILE_NAME.exec(name);
    if (m === null) continue;
    if (m[3] !== undefined) temporary.push(name);
    else (m[2] === 'log' ? logs : snapshots).push(Number(m[1]));
  }
  const ascending = (a: number, b: number): number => a - b;
  return { snapshots: snapshots.sort(ascending), logs: logs.sort(ascending), temporary };
}

export interface Cut {
  readonly file: string;
  readonly position: number;
  readonly bytes: number;
  readonly problem: string;
}

export interface Loaded {
  /** The newest generation found (0 in a directory without offset files). */
  readonly generation: number;
  /** Bytes of the logs replayed: what a snapshot would make unnecessary. */
  readonly logBytes: number;
  /** Logs whose end was cut: a record cut off by a crash, or damage. */
  readonly cuts: readonly Cut[];
}

/**
 * Replays the newest snapshot and the logs from its generation into `state`. A log's records
 * after the first that is cut short or fails its CRC are cut off the file; a damaged snapshot
 * (written whole and synced before it was put in place) stops the load, naming it.
 */
export async function loadOffsets(dir: string, files: OffsetFiles, state: OffsetState): Promise<Loaded> {
  const base = files.snapshots.at(-1);
  if (base !== undefined) {
    const file = join(dir, snapshotName(base));
    const bytes = await readFile(file);
    const scan = scanOrName(file, bytes, state);
    if (scan.problem !== undefined) throw new Error(`${file} is damaged at position ${scan.end}: ${scan.problem}`);
  }
  const cuts: Cut[] = [];
  let logBytes = 0;
  for (const generation of files.logs.filter((g) => base === undefined || g >= base)) {
    const file = join(dir, logName(generation));
    const bytes = await readFile(file);
    const scan = scanOrName(file, bytes, state);
    if (scan.problem !== undefined) {
      await truncate(file, scan.end);
      cuts.push({ file, position: scan.end, bytes: bytes.length - scan.end, problem: scan.problem });
    }
    logBytes += scan.end;
  }
  return { generation: Math.max(base ?? 0, files.logs.at(-1) ?? 0), logBytes, cuts };
}

function scanOrName(file: string, bytes: Buffer, state: OffsetState): ReturnType<typeof scanRecords> {
  try {
    return scanRecords(bytes, (change) => state.apply(change));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

/** Deletes the files a snapshot of `generation` has made unnecessary, and half-written snapshots. */
export async function removeOlderFiles(dir: string, generation: number): Promise<void> {
  const files = await listOffsetFiles(dir);
  const older = [...files.logs.filter((g) => g < generation).map(logName), ...files.snapshots.filter((g) => g < generation).map(snapshotName)];
  for (const name of [...older, ...files.temporary]) await rm(join(dir, name), { force: true });
}

export class SnapshotStopped extends Error {}

/**
 * Writes `groups` as snapshot `generation`, a chunk at a time, and puts it in place durably.
 * `stopped` is asked between chunks: a stop leaves no snapshot (its temporary file removed).
 */
export async function writeSnapshot(dir: string, generation: number, groups: Iterable<[string, GroupOffsets]>, stopped: () => boolean): Promise<void> {
  const path = join(dir, snapshotName(generation));
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'w');
  try {
    let pieces: Buffer[] = [];
    let bytes = 0;
    const flush = async (): Promise<void> => {
      if (stopped()) throw new SnapshotStopped('stopped');
      await writeAll(handle, Buffer.concat(pieces, bytes));
      pieces = [];
      bytes = 0;
    };
    for (const [groupId, topics] of groups) {
      const record = encodeRecord(commitOf(groupId, topics));
      pieces.push(record);
      bytes += record.length;
      if (bytes >= SNAPSHOT_CHUNK) await flush();
    }
    await flush();
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  await rename(temp, path);
  await syncDir(dir);
}

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  for (let done = 0; done < data.length;) done += (await handle.write(data, done, data.length - done, null)).bytesWritten;
}
