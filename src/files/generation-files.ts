/**
 * The files an earlier brook kept committed offsets and transaction states in, numbered by
 * generation, read once to move them into the coordinators' internal topics:
 *
 *   <prefix>-<g>.snapshot  the state as it was when log g was started, written whole
 *   <prefix>-<g>.log       the records since, appended
 *
 * The state is the newest snapshot followed by the logs of its generation and after, in order
 * (a crash during compaction left the log before the snapshot it was writing: the older
 * snapshot and both logs hold everything). Records are framed (framed-records.ts); what they
 * hold is their owner's.
 */
import { readdir, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordScan } from './framed-records.js';

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
}
