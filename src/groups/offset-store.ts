/**
 * Committed offsets by group: held in memory, and kept in the data directory as Kafka keeps them
 * in its compacted __consumer_offsets topic, as a log of changes (offset-files.ts) compacted in
 * the background. A change is encoded when it is asked for and appended together with the
 * changes asked for while the write before it was under way: one write, and under `--flush
 * always` one fsync, for all of them. It is visible, and its promise resolves, once written: in
 * the page cache, or under `always` on disk. What a change costs does not grow with the groups.
 *
 * Once the log since the last snapshot is as large as the live state (and at least
 * compactionMinBytes), a new log is started and the state as it was then is written as a
 * snapshot beside it, a chunk at a time; once that is in place the older files go.
 */
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileIfExists, syncDir } from '../files/durable-file.js';
import type { FlushPolicy } from '../settings/kinds.js';
import { LEGACY_OFFSETS_FILE, parseLegacyOffsets } from './legacy-offsets.js';
import { listOffsetFiles, loadOffsets, logName, removeOlderFiles, SnapshotStopped, writeSnapshot, type OffsetFiles } from './offset-files.js';
import { encodeRecord } from './offset-records.js';
import { OffsetState, type GroupOffsets, type OffsetChange, type PartitionOffset, type TopicPartition } from './offset-state.js';

export type { CommittedOffset, GroupOffsets, PartitionOffset, TopicPartition } from './offset-state.js';

export interface StoreLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface OffsetStoreOptions {
  readonly flush: FlushPolicy;
  readonly log: StoreLog;
  /** The log is not compacted before it is this large, however small the live state. */
  readonly compactionMinBytes?: number;
}

const COMPACTION_MIN_BYTES = 1024 * 1024;

interface Queued {
  readonly record: Buffer;
  readonly change: OffsetChange;
  readonly done: (err?: Error) => void;
}

export class OffsetStore {
  private queue: Queued[] = [];
  private writing: Promise<void> | undefined;
  /** Changes naming each group that are queued or being written. */
  private readonly pending = new Map<string, number>();
  /** Bytes written to the active log since its last fsync. */
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
    private readonly options: OffsetStoreOptions,
    private readonly state: OffsetState,
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
   * The offsets kept in `dir`: a `group-offsets.json` of an older brook is moved over first. A
   * log's end that a crash cut off mid-record is cut from the file, and said so in the log.
   */
  static async open(dir: string, options: OffsetStoreOptions): Promise<OffsetStore> {
    await migrateLegacyFile(dir, await listOffsetFiles(dir), options.log);
    const files = await listOffsetFiles(dir);
    const state = new OffsetState();
    const loaded = await loadOffsets(dir, files, state);
    for (const cut of loaded.cuts) options.log.warn(cut, 'committed offsets log cut where its intact records end');
    await removeOlderFiles(dir, files.snapshots.at(-1) ?? 0);
    const active = await open(join(dir, logName(loaded.generation)), 'a');
    try {
      if (!files.logs.includes(loaded.generation)) await syncDir(dir);
      const size = (await active.stat()).size;
      return new OffsetStore(dir, options, state, active, loaded.generation, size, loaded.logBytes);
    } catch (err) {
      await active.close();
      throw err;
    }
  }

  has(groupId: string): boolean {
    return this.state.has(groupId);
  }

  groupIds(): string[] {
    return this.state.groupIds();
  }

  offsets(groupId: string): GroupOffsets | undefined {
    return this.state.offsets(groupId);
  }

  /** Whether a change naming the group is on its way: what it will hold is not known yet. */
  hasPending(groupId: string): boolean {
    return this.pending.has(groupId);
  }

  commit(groupId: string, offsets: readonly PartitionOffset[], commitTimestamp = Date.now()): Promise<void> {
    return this.enqueue({ kind: 'commit', groupId, offsets: offsets.map((o) => ({ ...o, commitTimestamp })) });
  }

  /** Removes the group's offsets of these partitions; a group left without offsets goes. */
  deleteOffsets(groupId: string, partitions: readonly TopicPartition[]): Promise<void> {
    return this.enqueue({ kind: 'deleteOffsets', groupId, partitions });
  }

  deleteGroup(groupId: string): Promise<void> {
    return this.enqueue({ kind: 'deleteGroup', groupId });
  }

  /** Removes the topic's offsets from every group; a group left without offsets goes. */
  deleteTopic(topic: string): Promise<void> {
    return this.enqueue({ kind: 'deleteTopic', topic });
  }

  /** Writes what was asked for, stops a compaction under way and syncs the log; later changes are refused. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private enqueue(change: OffsetChange): Promise<void> {
    if (this.closing !== undefined) return Promise.reject(new Error('offset store is closed'));
    if (this.failure !== undefined) return Promise.reject(this.failedError());
    let record: Buffer;
    try {
      record = encodeRecord(change);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const groupId = change.kind === 'deleteTopic' ? undefined : change.groupId;
    if (groupId !== undefined) this.pending.set(groupId, (this.pending.get(groupId) ?? 0) + 1);
    return new Promise((resolve, reject) => {
      const done = (err?: Error): void => {
        if (groupId !== undefined) {
          const left = this.pending.get(groupId)! - 1;
          if (left === 0) this.pending.delete(groupId);
          else this.pending.set(groupId, left);
        }
        if (err === undefined) resolve();
        else reject(err);
      };
      this.queue.push({ record, change, done });
      this.writing ??= this.drain();
    });
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
        if (batch.length > 0) await this.append(batch.map((q) => q.record));
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
  private async append(records: Buffer[]): Promise<void> {
    const bytes = Buffer.concat(records);
    try {
      const { bytesWritten } = await this.active.write(bytes);
      if (bytesWritten < bytes.length) throw new Error(`only ${bytesWritten} of ${bytes.length} bytes written to the committed offsets log`);
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
      next = await open(join(this.dir, logName(generation)), 'a');
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
    const groups = this.state.entries();
    this.compaction = this.compact(previous.handle, previous.unsynced, generation, groups)
      .catch((err: Error) => {
        this.logBytes += previous.bytes;
        if (!(err instanceof SnapshotStopped)) this.compactionFailed(err);
      })
      .finally(() => {
        this.compaction = undefined;
      });
  }

  private async compact(previous: FileHandle, unsynced: boolean, generation: number, groups: [string, GroupOffsets][]): Promise<void> {
    try {
      // Under `interval:<ms>` the old log is synced as the timer would have: the snapshot may fail.
      if (unsynced && typeof this.options.flush === 'object') await previous.datasync();
    } finally {
      await previous.close();
    }
    await writeSnapshot(this.dir, generation, groups, () => this.closing !== undefined);
    await removeOlderFiles(this.dir, generation);
    this.options.log.info({ generation, groups: groups.length }, 'committed offsets compacted');
  }

  private compactionFailed(err: Error): void {
    this.compactionDeferredTo = 2 * this.logBytes;
    this.options.log.warn({ err }, 'committed offsets not compacted; their log grows until the next try');
  }

  private fail(err: Error): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    this.options.log.error({ err }, 'committed offsets log failed: offset changes refused until restarted');
    const queued = this.queue;
    this.queue = [];
    for (const q of queued) q.done(this.failedError());
  }

  private failedError(): Error {
    return new Error(`committed offsets log failed: ${this.failure?.message}`, { cause: this.failure });
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

/**
 * Moves the offsets of a `group-offsets.json` (brook before the log) into a first snapshot,
 * each taken as committed now, and removes the file. Offset files beside it mean a move a stop
 * cut short after its snapshot was in place: only the removal is left to do.
 */
async function migrateLegacyFile(dir: string, files: OffsetFiles, log: StoreLog): Promise<void> {
  const legacy = join(dir, LEGACY_OFFSETS_FILE);
  const bytes = await readFileIfExists(legacy);
  if (bytes === undefined) return;
  if (files.snapshots.length === 0 && files.logs.length === 0) {
    const state = new OffsetState();
    for (const [groupId, offsets] of parseLegacyOffsets(legacy, bytes.toString('utf8'), Date.now())) state.apply({ kind: 'commit', groupId, offsets });
    await writeSnapshot(dir, 0, state.entries(), () => false);
    log.info({ file: legacy, groups: state.groupIds().length }, 'committed offsets moved to their log');
  }
  await rm(legacy);
  await rm(`${legacy}.tmp`, { force: true });
  await syncDir(dir);
}
