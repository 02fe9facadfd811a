/**
 * The log cleaner: in the background, one partition at a time, it cleans the compacted
 * partition whose dirty share of its cleanable bytes is largest, once that share reaches the
 * topic's min.cleanable.dirty.ratio (or max.compaction.lag.ms makes it overdue), and waits
 * log.cleaner.backoff.ms whenever none needs it. Its work comes in chunks with other work in
 * between (segment-batches.ts), so produce and fetch go on meanwhile; its memory is the offset
 * map, bounded by log.cleaner.dedupe.buffer.size, and a chunk.
 */
import type { Reporter } from '../options.js';
import { readCleanerOffset, writeCleanerOffset } from '../partition-files.js';
import type { PartitionLog } from '../partition-log.js';
import { cleanPartition, dirtyState, type CleaningDone } from './clean-partition.js';
import type { CompactionConfig } from './compaction-config.js';
import { CleanerThread } from './cleaner-thread.js';
import { IoThrottle } from './io-throttle.js';
import type { SwapStepHook } from './swap-files.js';

export interface CleanerOptions {
  /** log.cleaner.dedupe.buffer.size: the offset map's bytes. */
  readonly dedupeBufferBytes: number;
  /** log.cleaner.backoff.ms: the wait when no partition needs cleaning. */
  readonly backoffMs: number;
  /** log.cleaner.io.max.bytes.per.second: the cleaner's reads and writes at most; no limit when absent. */
  readonly ioMaxBytesPerSecond?: number;
  readonly report: Reporter;
  /** A fault hook for tests, called after each segment swap of a cleaning with the swaps so far (and awaited): a test stops or kills the cleaner there. */
  readonly afterSwap?: (swaps: number) => void | Promise<unknown>;
  /** A fault hook for tests, called after each step of each swap (and awaited). */
  readonly atSwapStep?: SwapStepHook;
}

/** What the cleaner has done since it started, for metrics. */
export interface CleanerStats {
  bytesRead: number;
  bytesWritten: number;
  /** Cleanings run to their end. */
  cleanings: number;
  /** Cleanings stopped midway (a shutdown, a config change, a topic deleted) or failed. */
  cleaningsAborted: number;
  /** Seconds spent cleaning, in all and in the last cleaning. */
  cleanSeconds: number;
  lastCleanSeconds: number;
}

export interface CompactedPartition {
  readonly topic: string;
  readonly partition: number;
  readonly log: PartitionLog;
  readonly config: CompactionConfig;
}

export class LogCleaner {
  /** Where each partition's dirty part begins: where the last cleaning's offset map ended (its `cleaner-offset` file). */
  private readonly firstDirty = new WeakMap<PartitionLog, number>();
  /** Partitions whose data the cleaner could not read: left alone until a restart. */
  private readonly uncleanable = new WeakSet<PartitionLog>();
  /** Holds the offset map and does the work on files; started with the first cleaning. */
  private thread: CleanerThread | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<unknown> = Promise.resolve();
  private closed = false;
  readonly stats: CleanerStats = { bytesRead: 0, bytesWritten: 0, cleanings: 0, cleaningsAborted: 0, cleanSeconds: 0, lastCleanSeconds: 0 };
  /** Each compacted partition's dirty share of its cleanable bytes, as the last look found it: only partitions there are now. */
  private ratios = new Map<PartitionLog, { topic: string; partition: number; ratio: number }>();
  /** Ends a throttled cleaning's wait early, on close. */
  private wakeSleeper: (() => void) | undefined;

  constructor(
    private readonly partitions: () => Iterable<CompactedPartition>,
    private readonly options: CleanerOptions,
  ) {}

  /** Cleans in the background until closed. */
  start(): void {
    const loop = (): void => {
      this.pass = this.cleanOnce(Date.now())
        .catch((err: Error) => this.options.report.warn('log cleaner failed', { error: err.message }))
        .then((done) => {
          if (!this.closed) this.timer = setTimeout(loop, done === undefined ? this.options.backoffMs : 0).unref();
        });
    };
    this.timer = setTimeout(loop, this.options.backoffMs).unref();
  }

  /** Cleans the partition that needs it most, if any does; what it did. */
  async cleanOnce(now: number): Promise<(CleaningDone & { readonly log: PartitionLog }) | undefined> {
    let dirtiest: { part: CompactedPartition; ratio: number; state: Awaited<ReturnType<typeof dirtyState>> } | undefined;
    const ratios: typeof this.ratios = new Map();
    this.ratios = ratios;
    for (const part of this.partitions()) {
      const { log, config } = part;
      if (log.failed || this.uncleanable.has(log)) continue;
      const state = await dirtyState(log, await this.firstDirtyOf(log), config, now);
      ratios.set(log, { topic: part.topic, partition: part.partition, ratio: state.totalBytes === 0 ? 0 : state.dirtyBytes / state.totalBytes });
      if (state.dirtyBytes === 0) continue;
      const ratio = state.dirtyBytes / state.totalBytes;
      if (ratio < config.minCleanableDirtyRatio && !state.overdue) continue;
      if (dirtiest === undefined || ratio > dirtiest.ratio) dirtiest = { part, ratio, state };
    }
    if (dirtiest === undefined || this.closed) return undefined;
    const { log, config } = dirtiest.part;
    const firstDirty = await this.firstDirtyOf(log);
    const started = performance.now();
    try {
      const thread = (this.thread ??= new CleanerThread(this.options.dedupeBufferBytes));
      const done = await cleanPartition(log, dirtiest.state, firstDirty, config, thread, now, {
        stopped: () => this.closed || !this.stillCompacted(log),
        afterSwap: this.options.afterSwap,
        atSwapStep: this.options.atSwapStep,
        throttle: new IoThrottle(this.options.ioMaxBytesPerSecond ?? Infinity, { now: () => Date.now(), sleep: (ms) => this.sleep(ms) }),
      });
      // The map and the segments kept with it are memory the next cleaning fills again. After a
      // stop, which a shutdown that ends the thread may be, the next cleaning clears them.
      if (done?.stopped === false) await thread.clearMap();
      if (done === undefined) {
        this.uncleanable.add(log);
        this.options.report.warn('log cleaner: the offset map cannot hold the keys of one segment: raise log.cleaner.dedupe.buffer.size', { dir: log.dir });
        return undefined;
      }
      // A stopped cleaning is recorded only as far as it swapped segments in, as Kafka's
      // LogCleanerManager leaves an aborted cleaning's checkpoint where it was.
      if (done.cleanedTo > firstDirty) {
        await writeCleanerOffset(log.dir, done.cleanedTo);
        this.firstDirty.set(log, done.cleanedTo);
      }
      const ms = performance.now() - started;
      this.count(done, ms);
      // Each cleaning's rate in its log line, as Kafka's LogCleaner.recordStats logs MB/sec.
      const mbPerSecond = Number(((done.bytesRead + done.bytesWritten) / 1e6 / Math.max(ms / 1000, 1e-3)).toFixed(1));
      this.options.report.info(done.stopped ? 'stopped cleaning a compacted partition' : 'cleaned a compacted partition', {
        dir: log.dir,
        ...done,
        ms: Math.round(ms),
        mbPerSecond,
      });
      return done.stopped ? undefined : { ...done, log };
    } catch (err) {
      // A segment retention or DeleteRecords deleted meanwhile, or a topic deleted: the next look finds the log as it is now.
      this.stats.cleaningsAborted++;
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      this.uncleanable.add(log);
      this.options.report.warn('log cleaner: leaving a partition alone until restarted', { dir: log.dir, error: (err as Error).message });
      return undefined;
    }
  }

  /** The compacted partitions' dirty ratios as the last look for work found them. */
  dirtyRatios(): { topic: string; partition: number; ratio: number }[] {
    return [...this.ratios.values()];
  }

  private count(done: CleaningDone, ms: number): void {
    const { stats } = this;
    stats.bytesRead += done.bytesRead;
    stats.bytesWritten += done.bytesWritten;
    if (done.stopped) stats.cleaningsAborted++;
    else stats.cleanings++;
    stats.lastCleanSeconds = ms / 1000;
    stats.cleanSeconds += ms / 1000;
  }

  /**
   * Whether the partition is still compacted: not once its topic is deleted, nor once its
   * cleanup.policy drops `compact` (Kafka's LogManager.updateTopicConfig aborts the cleaning then).
   */
  private stillCompacted(log: PartitionLog): boolean {
    for (const part of this.partitions()) if (part.log === log) return true;
    return false;
  }

  /** Where the partition's dirty part begins: stored by its last cleaning, before a restart too; the log start if none was, or it lies past the log end. */
  private async firstDirtyOf(log: PartitionLog): Promise<number> {
    let offset = this.firstDirty.get(log);
    if (offset === undefined) {
      const stored = (await readCleanerOffset(log.dir)) ?? 0;
      offset = stored <= log.logEndOffset ? stored : 0;
      this.firstDirty.set(log, offset);
    }
    return offset;
  }

  /** Waits `ms`, or until closed, whichever comes first. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeSleeper = undefined;
        resolve();
      }, ms);
      this.wakeSleeper = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Stops cleaning; resolves once a cleaning under way has stopped between segments. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.wakeSleeper?.();
    await this.pass.catch(() => {});
    await this.thread?.close();
  }
}
