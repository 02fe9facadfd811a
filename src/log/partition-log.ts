/**
 * One partition's log: a directory of segments plus producer state that follows it. The façade
 * the rest of brook uses; the work is in the modules it holds:
 * - append() (here) is synchronous: it assigns the offset, commits producer state and hands a
 *   copy of the batch to the write queue (partition-writer.ts), whose writes and fsyncs move the
 *   high watermark;
 * - reads for Fetch and ListOffsets: partition-reader.ts;
 * - which old segments retention and DeleteRecords delete: retention.ts; when to roll:
 *   segment-roll.ts (both pure);
 * - housekeeping in the background: background-tasks.ts; its timers: partition-timers.ts.
 */
import { basename } from 'node:path';
import { UNCHECKED, type AppendContext } from '../idempotence/producer-decision.js';
import { unbounded } from '../memory/memory-budget.js';
import { assignBaseOffset, type BatchHeader, type Marker } from '../protocol/record-batch.js';
import type { ReadMemory } from './batch-file.js';
import { BackgroundTasks } from './background-tasks.js';
import type { Refusal } from '../protocol/refusal.js';
import { batchSizeRefusal } from './batch-size.js';
import { OffsetIndex } from './offset-index.js';
import { resolveLogOptions, type LogOptions, type ResolvedLogOptions } from './options.js';
import { pruneSnapshots, readLogStartOffset, writeLogStartOffset, writeRecoveryPoint, writeSnapshot } from './partition-files.js';
import { PartitionReader } from './partition-reader.js';
import { startTimers } from './partition-timers.js';
import { PartitionWriter } from './partition-writer.js';
import { producerRefusal, refusedAppend, type RefusedAppend } from './producer-refusals.js';
import type { AbortedTxn, ProducerEntry, ProducerStates, TransactionOutcome } from './producer-states.js';
import { recoverPartition, type RecoveryReport } from './recovery.js';
import { segmentsBelowStart, segmentsPastRetention } from './retention.js';
import { closeSegments, Segment } from './segment.js';
import { SegmentList } from './segment-list.js';
import { shouldRoll } from './segment-roll.js';
import { TailCache } from './tail-cache.js';

export type { AbortedTxn, ProducerEntry, TransactionOutcome } from './producer-states.js';
export type { RefusedAppend } from './producer-refusals.js';
export type { RecoveryReport } from './recovery.js';

/** What became of a batch given to append: written, or a duplicate (its first copy's offset), or refused. */
export type Appended = Written | RefusedAppend;

/** A batch written at `baseOffset`, or a duplicate whose first copy was. */
export interface Written {
  readonly kind: 'append' | 'duplicate';
  readonly baseOffset: number;
}

/** An offset the log start cannot move to. */
export class OffsetOutOfRangeError extends RangeError {}

/** How long a segment compaction replaced stays open for readers that still hold it (Kafka's file.delete.delay.ms). */
const RETIRED_MS = 60_000;

export class PartitionLog {
  private options: ResolvedLogOptions;
  private readonly segments: SegmentList;
  private readonly states: ProducerStates;
  private readonly tail: TailCache;
  private readonly writer: PartitionWriter;
  private readonly reader: PartitionReader;
  private readonly tasks: BackgroundTasks;
  private logEnd: number;
  private cleaned = 0;
  /** Where DeleteRecords moved the log start; retention moves it by deleting segments. */
  private startOffset: number;
  /** When the active segment was started, or this run began: segment.ms for batches without timestamps. */
  private activeSince = Date.now();
  private retaining: Promise<void> | undefined;
  private stopTimers: () => void = () => {};
  /** Segments compaction replaced, open for the readers that still hold them, until RETIRED_MS later. */
  private readonly retired = new Set<Segment>();
  private closing: Promise<void> | undefined;

  private constructor(
    readonly dir: string,
    options: ResolvedLogOptions,
    segments: Segment[],
    logEnd: number,
    startOffset: number,
    states: ProducerStates,
    /** What opening found and did. */
    readonly recovery: RecoveryReport,
  ) {
    this.options = options;
    this.segments = new SegmentList(segments);
    this.states = states;
    this.logEnd = logEnd;
    this.startOffset = startOffset;
    const memory = options.memory ?? unbounded();
    this.tail = new TailCache(options.tailCacheBytes, memory);
    this.tasks = new BackgroundTasks(
      dir,
      () => this.options.report,
      (err) => this.writer.fail(err),
    );
    this.writer = new PartitionWriter(dir, this.segments, this.tasks, () => this.options, logEnd, memory);
    this.reader = new PartitionReader(this.segments, this.tail, this);
  }

  /** Opens (creating if need be) the partition directory, recovering it after any kind of stop. */
  static async open(dir: string, options: LogOptions = {}): Promise<PartitionLog> {
    const resolved = resolveLogOptions(options);
    const recovered = await recoverPartition(dir, resolved);
    // A stored start past the log end (a tail not yet fsynced, lost in a crash) is taken as the
    // log end, and stored so: offsets from there are handed out again, as after any lost tail,
    // and the next start must not hide them.
    let startOffset: number;
    try {
      const stored = (await readLogStartOffset(dir)) ?? 0;
      startOffset = Math.min(stored, recovered.logEndOffset);
      if (startOffset < stored) await writeLogStartOffset(dir, startOffset);
    } catch (err) {
      await closeSegments(recovered.segments);
      throw err;
    }
    const log = new PartitionLog(dir, resolved, recovered.segments, recovered.logEndOffset, startOffset, recovered.producers, recovered.report);
    log.stopTimers = startTimers(resolved, {
      sync: (checkpoint) => log.writer.requestSync(checkpoint),
      retain: () => {
        log.enforceRetention(Date.now()).catch((err: Error) => {
          log.options.report.warn('partition log: retention failed', { dir, error: err.message });
        });
      },
    });
    return log;
  }

  /** The first offset served: below it, reads answer nothing, as if those records were gone. */
  get logStartOffset(): number {
    return Math.max(this.startOffset, this.segments.oldestBase);
  }

  /** Next offset to assign; counts batches queued but not yet written. */
  get logEndOffset(): number {
    return this.logEnd;
  }

  /** Every batch below it is in the file (and fsynced under flush 'always'); reads stop here. */
  get highWatermark(): number {
    return this.writer.highWatermark;
  }

  /** Whether a write failed: the partition takes nothing more, and its producer state may hold batches that are not on disk. */
  get failed(): boolean {
    return this.writer.failed;
  }

  producerState(producerId: bigint): ProducerEntry | undefined {
    return this.states.get(producerId);
  }

  producers(): Iterable<[bigint, ProducerEntry]> {
    return this.states.entries();
  }

  /** The base offsets in [from, to) of batches in a producer's window. */
  producerBatchOffsets(from: number, to: number): number[] {
    return this.states.windowOffsets(from, to);
  }

  /**
   * Where read_committed reads stop: the first offset of the oldest open transaction, or the high
   * watermark.
   */
  get lastStableOffset(): number {
    const hw = this.highWatermark;
    return Math.min(this.states.firstUnstableOffset() ?? hw, hw);
  }

  /** The first offset of the producer's open transaction here. */
  openTxnStart(producerId: bigint): number | undefined {
    return this.states.openTxnStart(producerId);
  }

  /** Whether the producer's transactional record at `offset` was committed, aborted, or is still open. */
  transactionOutcome(producerId: bigint, offset: number): TransactionOutcome {
    return this.states.transactionOutcome(producerId, offset);
  }

  /** The aborted transactions whose records may lie in [from, to). */
  abortedTxns(from: number, to: number): AbortedTxn[] {
    return this.states.abortedBetween(from, to);
  }

  /** Why the log would refuse a batch of `bytes` (max.message.bytes, segment.bytes); undefined if it takes it. */
  sizeRefusal(bytes: number): Refusal | undefined {
    // The directory is named as Kafka's `LocalLog.logDirName` names a partition: topic-index.
    return batchSizeRefusal(bytes, basename(this.dir), this.options);
  }

  /**
   * Appends a batch the caller has validated, if the producer decision
   * (idempotence/producer-decision.ts) accepts it, as Kafka's UnifiedLog.append asks
   * ProducerAppendInfo: writes its base offset into `batch` and copies it, so the caller may reuse
   * `batch`'s memory once this returns. A duplicate or refused batch changes nothing. `context`
   * is what the broker knows of the producer beyond the partition; `marker` says what a control
   * batch marks. A batch too large for the log is refused as the decision's refusals are,
   * appending nothing; only a failed or closed log throws.
   */
  append(batch: Buffer, header: BatchHeader, now: number, context: AppendContext = UNCHECKED, marker?: Marker): Appended {
    if (this.writer.failed) throw this.writer.failedError();
    if (this.closing !== undefined) throw new Error(`partition log ${this.dir} is closed`);
    if (header.size !== batch.length) throw new RangeError(`batch holds ${batch.length} bytes, its header says ${header.size}`);
    const tooLarge = this.sizeRefusal(batch.length);
    if (tooLarge !== undefined) return refusedAppend(tooLarge);
    const baseOffset = this.logEnd;
    // Before the log is touched: a duplicate or refused batch changes nothing.
    const decision = this.states.decide(header, baseOffset, context);
    if (decision !== undefined && decision.kind !== 'append') return decision.kind === 'duplicate' ? decision : producerRefusal(decision.kind);
    const end = baseOffset + header.lastOffsetDelta + 1;
    let segment = this.segments.active;
    if (shouldRoll(segment, header, baseOffset, now, this.activeSince, this.options)) segment = this.roll(now);
    assignBaseOffset(batch, 0, baseOffset);
    // Copied before any state changes, so that a failed allocation leaves the log as it was.
    const staged = this.writer.stage(batch);
    segment.place(baseOffset, header, this.options.indexIntervalBytes);
    if (decision !== undefined) this.states.apply(header.producerId, decision, header.maxTimestamp, now, marker);
    this.logEnd = end;
    this.tail.push(baseOffset, end, staged);
    this.writer.enqueue(segment, staged, end);
    return decision ?? { kind: 'append', baseOffset };
  }

  /** Runs with `options` from now on: retention from its next check, segment sizes from the next roll. */
  configure(options: LogOptions): void {
    this.options = resolveLogOptions(options);
  }

  /** A consumer fetches the partition, at its end too: its newest batches are kept in memory from now on. */
  noteRead(): void {
    this.tail.noteRead();
  }

  /** Resolves once `offset` is below the high watermark; rejects if its write failed. */
  whenWritten(offset: number): Promise<void> {
    return this.writer.whenWritten(offset, this.logEnd);
  }

  /** Resolves once every batch appended so far is written and fsynced, with a checkpoint; rejects if a write failed. */
  async sync(): Promise<void> {
    if (this.logEnd > 0) await this.whenWritten(this.logEnd - 1);
    this.writer.requestSync(true);
    await this.writer.finished();
    if (this.failed) throw this.writer.failedError();
  }

  /**
   * Stored batches, verbatim and back to back, from the one holding `fetchOffset` up to `upTo` (the
   * high watermark, or for read_committed the last stable offset): as many whole batches as fit in
   * `maxBytes` (from disk: from one segment, and up to an eighth of `maxBytes` fewer), but at least
   * one. Empty if `fetchOffset` is outside
   * [logStartOffset, highWatermark), retention having raced included. The bytes are in memory
   * from `memory`. Batches from disk are checked (their headers; their CRC where no check since
   * the start vouched for them): a damaged one ends them, and LogDamageError is thrown when it is
   * the first.
   */
  read(fetchOffset: number, maxBytes: number, memory?: ReadMemory, upTo = this.highWatermark): Promise<Buffer> {
    return this.reader.read(fetchOffset, maxBytes, memory, upTo);
  }

  /** The largest batch time in the log, -1 when it is empty or has none (ListOffsets MAX_TIMESTAMP). */
  maxTimestamp(): Promise<number> {
    return this.reader.maxTimestamp();
  }

  /**
   * The first batch reaching `from` (the log start unless later) whose records may reach
   * `timestamp` (ListOffsets): its base offset (or `from`, if that lies inside it) and time. A batch
   * stored with its max timestamp unset is a candidate whatever its time: its records say.
   */
  offsetForTimestamp(timestamp: number, from = 0): Promise<{ offset: number; timestamp: number } | undefined> {
    return this.reader.offsetForTimestamp(timestamp, from);
  }

  /**
   * Moves the log start up to `offset` (DeleteRecords); OffsetOutOfRangeError for an offset below
   * zero or past the high watermark. The start is stored before it is served, so a restart keeps
   * it; the segments then wholly below it are deleted, and a segment it lies inside stays, its
   * records below it unserved.
   */
  advanceLogStart(offset: number): Promise<void> {
    if (this.closing !== undefined) return Promise.reject(new Error(`partition log ${this.dir} is closed`));
    const hw = this.highWatermark;
    if (offset < 0 || offset > hw) return Promise.reject(new OffsetOutOfRangeError(`offset ${offset} is outside [0, ${hw}], the high watermark`));
    // Queued behind segment deletions and snapshot writes, which close() waits for too.
    return this.tasks.then(async () => {
      if (offset <= this.logStartOffset) return;
      await writeLogStartOffset(this.dir, offset);
      this.startOffset = offset;
      const below = segmentsBelowStart(this.sealedAndWriting(), offset);
      if (below > 0) this.deleteOldest(below, 'deleted segments below the log start');
    });
  }

  /**
   * Deletes old segments (never the active one) wholly below the log start, past retention.ms or
   * beyond retention.bytes, moving the log start, and forgets producers idle for
   * producer.id.expiration.ms. Producer state outlives its batches: retention alone never forgets
   * a producer (KAFKA-7190).
   */
  enforceRetention(now: number): Promise<void> {
    this.retaining ??= this.retain(now).finally(() => {
      this.retaining = undefined;
    });
    return this.retaining;
  }

  /**
   * What compaction may rewrite: the segments before the one being written (all written), up to
   * `end`, that one's base offset; how their indexes are spaced; a segment's time (its largest batch time).
   */
  cleanable(): {
    readonly segments: readonly Segment[];
    readonly end: number;
    readonly indexIntervalBytes: number;
    /** segment.bytes: what a cleaned segment made of several holds at most. */
    readonly segmentBytes: number;
    readonly time: (segment: Segment) => Promise<number>;
  } {
    const writing = this.writer.writingTo;
    return {
      segments: this.sealedAndWriting().slice(0, -1),
      end: writing.baseOffset,
      indexIntervalBytes: this.options.indexIntervalBytes,
      segmentBytes: this.options.segmentBytes,
      time: (segment) => this.segments.use(segment, -1, () => segment.largest()),
    };
  }

  /**
   * Puts `cleaned`, a compacted copy of `olds` (adjacent segments, oldest first) with the first's
   * base offset, in their place once `commit` has swapped their files; queued with segment
   * deletions. False, nothing committed, if any of `olds` is no longer in the log. A failed
   * commit fails the partition: a restart finishes or undoes the swap.
   */
  replaceSegments(olds: readonly Segment[], cleaned: Segment, commit: () => Promise<void>): Promise<boolean> {
    return this.tasks.then(() => {
      if (!this.segments.holdsRun(olds) || this.closing !== undefined || this.writer.failed) return Promise.resolve(false);
      return this.segments.replacing(() => this.swapIn(olds, cleaned, commit));
    });
  }

  /** replaceSegments, in its turn. */
  private async swapIn(olds: readonly Segment[], cleaned: Segment, commit: () => Promise<void>): Promise<true> {
    for (const old of olds) {
      await old.retire(cleaned);
      this.retired.add(old);
    }
    setTimeout(() => {
      for (const old of olds) if (this.retired.delete(old)) old.close().catch(() => {});
    }, RETIRED_MS).unref();
    try {
      await commit();
    } catch (err) {
      this.writer.fail(err as Error);
      throw err;
    }
    this.segments.replace(olds, cleaned);
    this.cleaned++;
    this.tail.forgetBelow(this.segments.after(cleaned)!.baseOffset);
    return true;
  }

  /** How many segments compaction has replaced since the log opened: what was read of them before may be gone. */
  get cleanings(): number {
    return this.cleaned;
  }

  /** Writes what is queued, stores producer state and leaves the clean-shutdown recovery point. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  /** A new active segment at the log end, carrying the producer state there for its snapshot. */
  private roll(now: number): Segment {
    this.activeSince = now;
    const segment = new Segment(this.dir, this.logEnd, 0, OffsetIndex.empty());
    segment.rollSnapshot = this.states.snapshot(this.logEnd);
    // A failure is reported when the snapshot is stored, which a segment never written never does.
    segment.rollSnapshot.catch(() => {});
    this.segments.push(segment);
    return segment;
  }

  private async retain(now: number): Promise<void> {
    if (this.closing !== undefined || this.writer.failed) return;
    const { retentionMs, retentionBytes, producerIdExpirationMs } = this.options;
    // A copy, since DeleteRecords may delete the oldest segments meanwhile.
    const segments = this.sealedAndWriting();
    const log = this;
    const limits = {
      now,
      retentionMs,
      retentionBytes,
      get logStartOffset(): number {
        return log.startOffset;
      },
      get highWatermark(): number {
        return log.highWatermark;
      },
    };
    const doomed = await segmentsPastRetention(segments, limits, {
      largestBatchTime: (segment) => this.segments.use(segment, now, () => segment.largest()),
      modifiedMs: (segment) => this.segments.use(segment, now, () => segment.modifiedMs()),
    });
    // Up to the last doomed segment still there: those before it may be gone already.
    const count = doomed === 0 ? 0 : this.segments.indexOf(segments[doomed - 1]!) + 1;
    if (count > 0 && this.closing === undefined) this.deleteOldest(count, 'retention deleted segments');
    this.states.expire(now, producerIdExpirationMs);
    this.states.pruneAborted(this.logStartOffset);
    await this.tasks.settled();
  }

  /** Deletes the oldest `count` segments, never the active one, and the producer snapshots before them. */
  private deleteOldest(count: number, what: string): void {
    const deleted = this.segments.removeOldest(count);
    this.options.report.info(what, { dir: this.dir, segments: deleted.length, logStartOffset: this.logStartOffset });
    for (const segment of deleted) this.tasks.run(false, 'deleting a segment', () => segment.delete());
    this.tasks.run(false, 'pruning producer snapshots', () => pruneSnapshots(this.dir, this.segments.oldestBase));
  }

  private async shutDown(): Promise<void> {
    this.stopTimers();
    await this.writer.finished();
    this.tail.release();
    this.writer.releaseMemory();
    await this.retaining?.catch(() => {});
    await this.tasks.settled();
    if (this.writer.failed) return this.closeFiles();
    const active = this.segments.active;
    await active.sync(true);
    // The segments' files are closed before the snapshot and recovery point are written, so that
    // a process at its open-file limit has, for those, the descriptors the partition gave up.
    const point = { segmentBase: active.baseOffset, position: active.size, nextOffset: this.logEnd };
    await this.closeFiles();
    await writeSnapshot(this.dir, this.logEnd, this.states.encode(this.logEnd), this.segments.oldestBase);
    await writeRecoveryPoint(this.dir, point);
  }

  /**
   * The segments up to the one the writer writes to, which lags the active one from a roll until
   * the new segment's first write: that one is sealed only then, so nothing may delete or replace
   * it before, though every offset in it is already below the high watermark.
   */
  private sealedAndWriting(): Segment[] {
    const segments = this.segments.snapshot();
    return segments.slice(0, segments.indexOf(this.writer.writingTo) + 1);
  }

  /** The segments' files, and those of segments replaced while a read still held them. */
  private async closeFiles(): Promise<void> {
    await this.segments.close();
    await Promise.all([...this.retired].map((s) => s.close()));
  }
}
