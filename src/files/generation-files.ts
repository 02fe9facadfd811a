/**
 * State kept as Kafka keeps a compacted topic (`UnifiedLog` cleaned by `LogCleaner`): a log of records appended, and now and then a
 * snapshot of the whole state, numbered by generation:
 *
 *   <prefix>-<g>.snapshot  the state as it was when log g was started, written whole (temporary
 *                          file, fsync, rename, directory fsync)
 *   <prefix>-<g>.log       the records since, appended
 *
 * The state is the newest snapshot followed by the logs of its generation and after, in order
 * (a crash during compaction leaves the log before the snapshot it was writing: the older
 * snapshot and both logs hold everything). Older files are deleted once a snapshot is in place.
 * Records are framed (framed-records.ts); what they hold is their owner's.
 */
import { open, readdir, readFile, rename, rm, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from './durable-file.js';
import type { RecordScan } from './framed-records.js';

/** Snapshot bytes gathered before they are written, letting the event loop run in between. */
const SNAPSHOT_CHUNK = 256 * 1024;

export interface GenerationList {
  readonly snapshots: readonly number[];
  readonly logs: readonly number[];
  /** Snapshots a crash or stop left half written. */
  readonly temporary: readonly string[];
}

export interface Cut {
  readonly file: string;
  readonly position: number;
  readonly bytes: number;
  readonly problem: string;
}

export interface Loaded {
  /** The newest generation found (0 in a directory without the files). */
  readonly generation: number;
  /** Bytes of the logs replayed: what a snapshot would make unnecessary. */
  readonly logBytes: number;
  /** Logs whose end was cut: a record cut off by a crash, or damage. */
  readonly cuts: readonly Cut[];
}

export class SnapshotStopped extends Error {}

export class GenerationFiles {
  private readonly pattern: RegExp;

  constructor(private readonly prefix: string) {
    this.pattern = new RegExp(`^${prefix}-(\\d{1,15})\\.(log|snapshot)(\\.tmp)?$`);
  }

  logName(generation: number): string {
    return `${this.prefix}-${generation}.log`;
  }

  snapshotName(generation: number): string {
    return `${this.prefix}-${generation}.snapshot`;
  }

  async list(dir: string): Promise<GenerationList> {
    const snapshots: number[] = [];
    const logs: number[] = [];
    const temporary: string[] = [];
    for (const name of await readdir(dir)) {
      const m = this.pattern.exec(name);
      if (m === null) continue;
      if (m[3] !== undefined) temporary.push(name);
      else (m[2] === 'log' ? logs : snapshots).push(Number(m[1]));
    }
    const ascending = (a: number, b: number): number => a - b;
    return { snapshots: snapshots.sort(ascending), logs: logs.sort(ascending), temporary };
  }

  /**
   * Hands the newest snapshot and the logs from its generation to `scan`, in order. A log's records
   * after the first that `scan` finds cut short or damaged are cut off the file; a damaged
   * snapshot (written whole and synced before it was put in place) stops the load, naming it.
   * `scan` throws, naming nothing, for a record that checks out but is not one its owner writes.
   */
  async load(dir: string, files: GenerationList, scan: (bytes: Buffer) => RecordScan): Promise<Loaded> {
    const named = (file: string, bytes: Buffer): RecordScan => {
      try {
        return scan(bytes);
      } catch (err) {
        throw new Error(`${file}: ${(err as Error).message}`);
      }
    };
    const base = files.snapshots.at(-1);
    if (base !== undefined) {
      const file = join(dir, this.snapshotName(base));
      const found = named(file, await readFile(file));
      if (found.problem !== undefined) throw new Error(`${file} is damaged at position ${found.end}: ${found.problem}`);
    }
    const cuts: Cut[] = [];
    let logBytes = 0;
    for (const generation of files.logs.filter((g) => base === undefined || g >= base)) {
      const file = join(dir, this.logName(generation));
      const bytes = await readFile(file);
      const found = named(file, bytes);
      if (found.problem !== undefined) {
        await truncate(file, found.end);
        cuts.push({ file, position: found.end, bytes: bytes.length - found.end, problem: found.problem });
      }
      logBytes += found.end;
    }
    return { generation: Math.max(base ?? 0, files.logs.at(-1) ?? 0), logBytes, cuts };
  }

  /** Deletes the files a snapshot of `generation` has made unnecessary, and half-written snapshots. */
  async removeOlder(dir: string, generation: number): Promise<void> {
    const files = await this.list(dir);
    const older = [
      ...files.logs.filter((g) => g < generation).map((g) => this.logName(g)),
      ...files.snapshots.filter((g) => g < generation).map((g) => this.snapshotName(g)),
    ];
    for (const name of [...older, ...files.temporary]) await rm(join(dir, name), { force: true });
  }

  /**
   * Writes `records` as snapshot `generation`, a chunk at a time, and puts it in place durably.
   * `stopped` is asked between chunks: a stop leaves no snapshot (its temporary file removed).
   */
  async writeSnapshot(dir: string, generation: number, records: Iterable<Buffer>, stopped: () => boolean): Promise<void> {
    const path = join(dir, this.snapshotName(generation));
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
      for (const record of records) {
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
}

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  for (let done = 0; done < data.length;) done += (await handle.write(data, done, data.length - done, null)).bytesWritten;
}
