/**
 * A state held in memory and kept in the data directory as Kafka's `LogCleaner` keeps a compacted topic
 * (generation-files.ts): each change is appended as a record, together with the changes asked
 * for while the write before it was under way (one write, and under `--flush always` one fsync,
 * for all of them), and takes effect once written. Once the log since the last snapshot is as
 * large as the live state (and at least compactionMinBytes), a new log is started and the state
 * as it was then is written as a snapshot beside it, in the background; once that is in place the
 * older files go. What a change costs does not grow with the state.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { IncompleteWriteError } from './io-error.js';
import type { FlushPolicy } from '../settings/kinds.js';
import { syncDir } from './durable-file.js';
import { SnapshotStopped, type GenerationFiles, type Loaded } from './generation-files.js';

/** What the log keeps: changes take effect in it, and it gives its records for a snapshot. */
export interface CompactedState<Change> {
  apply(change: Change): void;
  /** About the bytes a snapshot of the state takes. */
  readonly liveBytes: number;
  /** The state's records as it is now, read while later changes are made without changing them. */
  snapshotRecords(): Iterable<Buffer>;
}

export interface StoreLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface CompactedLogOptions {
  readonly flush: FlushPolicy;
  readonly log: StoreLog;
  /** The log is not compacted before it is this large, however small the live state. */
  readonly compactionMinBytes?: number;
}

const COMPACTION_MIN_BYTES = 1024 * 1024;

interface Queued<Change> {
  readonly record: Buffer;
  readonly change: Change;
  readonly done: (err?: Error) => void;
}

export class CompactedLog<Change> {
  private queue: Queued<Change>[] = [];
  private writing: Promise<void> | undefined;
  /** Whether the active log holds bytes not yet fsynced. */
  private unsynced = false;
  private syncWanted = false;
  /** Bytes of the logs that the next snapshot replaces. */
  private logBytes: number;
  /** After a failed compaction, the log bytes the next one waits for. */
  private compactionDeferredTo = 0;
  private compaction: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private failure: Error | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly dir: string,
    private readonly files: GenerationFiles,
    /** What the log holds, in words: `committed offsets`. */
    private readonly what: string,
    private readonly options: CompactedLogOptions,
    private readonly state: CompactedState<Change>,
    private active: FileHandle,
    private generation: number,
    /** Bytes in the active log. */
    private activeSize: number,
    logBytes: number,
  ) {
    this.logBytes = logBytes;
    const { flush } = options;
    if (typeof flush === 'object') {
      this.timer = setInterval(() => this.requestSync(), flush.intervalMs);
      this.timer.unref();
    }
  }

  /**
   * Goes on from what `loaded` found in `dir` (the state already holds it): files a snapshot made
   * unnecessary are removed and the newest generation's log is opened for appending.
   */
  static async open<Change>(
    dir: string,
    files: GenerationFiles,
    what: string,
    loaded: Loaded,
    state: CompactedState<Change>,
    options: CompactedLogOptions,
  ): Promise<CompactedLog<Change>> {
    for (const cut of loaded.cuts) options.log.warn(cut, `${what} log cut where its intact records end`);
    const list = await files.list(dir);
    await files.removeOlder(dir, list.snapshots.at(-1) ?? 0);
    const active = await open(join(dir, files.logName(loaded.generation)), 'a');
    try {
      if (!list.logs.includes(loaded.generation)) await syncDir(dir);
      const size = (await active.stat()).size;
      return new CompactedLog(dir, files, what, options, state, active, loaded.generation, size, loaded.logBytes);
    } catch (err) {
      await active.close();
      throw err;
    }
  }

  /** Appends `record` and then applies `change`; resolves once both are done (under `always`, once on disk). */
  append(record: Buffer, change: Change): Promise<void> {
    if (this.closing !== undefined) return Promise.reject(new Error(`the ${this.what} log is closed`));
    if (this.failure !== undefined) return Promise.reject(this.failedError());
    return new Promise((resolve, reject) => {
      this.queue.push({ record, change, done: (err) => (err === undefined ? resolve() : reject(err)) });
      this.writing ??= this.drain();
    });
  }

  /** Writes what was asked for, stops a compaction under way and syncs the log; later changes are refused. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private requestSync(): void {
    if (!this.unsynced || this.failure !== undefined) return;
    this.syncWanted = true;
    this.writing ??= this.drain();
  }

  private async drain(): Promise<void> {
    while (this.failure === undefined && (this.queue.length > 0 || this.syncWanted)) {
      const batch = this.queue;
      this.queue = [];
      const syncWanted = this.syncWanted;
      this.syncWanted = false;
      try {
        if (batch.length > 0) await this.write(batch.map((q) => q.record));
      } catch (err) {
        for (const q of batch) q.done(err as Error);
        continue;
      }
      if ((this.options.flush === 'always' && batch.length > 0) || (syncWanted && this.unsynced)) {
        try {
          await this.active.datasync();
          this.unsynced = false;
        } catch (err) {
          // What was written, and acknowledged before, may or may not be on disk: nothing more is taken.
          this.fail(err as Error);
          for (const q of batch) q.done(this.failedError());
          break;
        }
      }
      for (const q of batch) this.state.apply(q.change);
      for (const q of batch) q.done();
      if (this.compactionDue()) await this.startCompaction();
    }
    this.writing = undefined;
  }

  /** Appends the records, or, failing, leaves the log as it was. */
  private async write(records: Buffer[]): Promise<void> {
    const bytes = Buffer.concat(records);
    try {
      const { bytesWritten } = await this.active.write(bytes);
      if (bytesWritten < bytes.length) throw new IncompleteWriteError(`only ${bytesWritten} of ${bytes.length} bytes written to the ${this.what} log`);
    } catch (err) {
      // A part of these records left in the log would end the intact records there at the next
      // start, and take every later record with it.
      try {
        await this.active.truncate(this.activeSize);
      } catch (cause) {
        this.fail(cause as Error);
      }
      throw err;
    }
    this.activeSize += bytes.length;
    this.logBytes += bytes.length;
    this.unsynced = true;
  }

  private compactionDue(): boolean {
    const { compactionMinBytes = COMPACTION_MIN_BYTES } = this.options;
    return (
      this.compaction === undefined &&
      this.closing === undefined &&
      this.logBytes >= Math.max(compactionMinBytes, this.state.liveBytes, this.compactionDeferredTo)
    );
  }

  /**
   * Starts the next log, between two writes, so that the state now is exactly what the logs
   * before it hold; that state is then written as the snapshot of the new log's generation.
   */
  private async startCompaction(): Promise<void> {
    const generation = this.generation + 1;
    let next: FileHandle | undefined;
    try {
      next = await open(join(this.dir, this.files.logName(generation)), 'a');
      // Changes acknowledged from now on are in the new file: under `always` its name is synced first.
      if (this.options.flush === 'always') await syncDir(this.dir);
    } catch (err) {
      await next?.close().catch(() => {});
      this.compactionFailed(err as Error);
      return;
    }
    const previous = { handle: this.active, unsynced: this.unsynced, bytes: this.logBytes };
    this.active = next;
    this.generation = generation;
    this.activeSize = 0;
    this.logBytes = 0;
    this.unsynced = false;
    const records = this.state.snapshotRecords();
    this.compaction = this.compact(previous.handle, previous.unsynced, generation, records)
      .catch((err: Error) => {
        this.logBytes += previous.bytes;
        if (!(err instanceof SnapshotStopped)) this.compactionFailed(err);
      })
      .finally(() => {
        this.compaction = undefined;
      });
  }

  private async compact(previous: FileHandle, unsynced: boolean, generation: number, records: Iterable<Buffer>): Promise<void> {
    try {
      // Under `interval:<ms>` the old log is synced as the timer would have: the snapshot may fail.
      if (unsynced && typeof this.options.flush === 'object') await previous.datasync();
    } finally {
      await previous.close();
    }
    await this.files.writeSnapshot(this.dir, generation, records, () => this.closing !== undefined);
    await this.files.removeOlder(this.dir, generation);
    this.options.log.info({ generation }, `${this.what} compacted`);
  }

  private compactionFailed(err: Error): void {
    this.compactionDeferredTo = 2 * this.logBytes;
    this.options.log.warn({ err }, `${this.what} not compacted; the log grows until the next try`);
  }

  private fail(err: Error): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    this.options.log.error({ err }, `${this.what} log failed: changes refused until restarted`);
    const queued = this.queue;
    this.queue = [];
    for (const q of queued) q.done(this.failedError());
  }

  private failedError(): Error {
    return new Error(`${this.what} log failed: ${this.failure?.message}`, { cause: this.failure });
  }

  private async shutDown(): Promise<void> {
    clearInterval(this.timer);
    while (this.writing !== undefined) await this.writing;
    await this.compaction;
    try {
      if (this.failure === undefined && this.unsynced) await this.active.datasync();
    } finally {
      await this.active.close();
    }
  }
}
