/**
 * One partition's log: a directory of segments plus producer state that follows it.
 *
 * append() is synchronous: it assigns the offset, commits producer state and queues a copy of the batch.
 * One writer per partition then stores everything queued, one vectored write per segment per
 * turn, and, under flush 'always', one fsync for all of it (group commit); the high watermark
 * moves once that is done. A write error fails the partition: nothing more is accepted, and
 * only a restart (which re-reads the disk) brings it back.
 */
import type { FileHandle } from 'node:fs/promises';
import { assignBaseOffset, BATCH_HEADER_SIZE, batchTime, holdsRecords, offsetAfter, type BatchHeader } from '../protocol/record-batch.js';
import { readAt, scanBatches, type ReadMemory } from './batch-file.js';
import { syncDir } from '../files/durable-file.js';
import { intactBatches, LogDamageError } from './log-damage.js';
import { OffsetIndex } from './offset-index.js';
import { resolveLogOptions, type LogOptions, type ResolvedLogOptions } from './options.js';
import { pruneSnapshots, readLogStartOffset, writeLogStartOffset, writeRecoveryPoint, writeSnapshot } from './partition-files.js';
import type { ProducerEntry, ProducerStates } from './producer-states.js';
import { recoverPartition, type RecoveryReport } from './recovery.js';
import { closeSegments, Segment, SegmentCache } from './segment.js';
import { StagingBuffer } from './staging-buffer.js';
import { TailCache } from './tail-cache.js';

export type { ProducerEntry } from './producer-states.js';
export type { RecoveryReport } from './recovery.js';

/** Batches queued for one segment in one turn. */
interface PendingWrite {
  readonly segment: Segment;
  readonly buffers: Buffer[];
  /** Index entries of the segment once these are placed. */
  indexEntries: number;
  /** Offset after the last of these batches. */
  end: number;
}

/** The batches of one write, and those waiting for it to finish; the promise exists only if asked for. */
class Turn {
  end = 0;
  private waiting: Promise<void> | undefined;
  private resolve: () => void = () => {};
  private reject: (err: Error) => void = () => {};

  wait(): Promise<void> {
    this.waiting ??= new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    return this.waiting;
  }

  settle(error?: Error): void {
    if (error === undefined) this.resolve();
    else this.reject(error);
  }
}

/** An offset the log start cannot move to. */
export class OffsetOutOfRangeError extends RangeError {}

/** Old segments kept open for reading at once, per partition. */
const OPEN_OLD_SEGMENTS = 4;
/** Relative offsets in the index are 32-bit. */
const MAX_RELATIVE_OFFSET = 0xffffffff;
/**
 * A read from disk may return up to this share of maxBytes less than fits, for the bytes between
 * the index entry and the batch wanted, rather than read again from that batch.
 */
const SKIPPED_SHARE = 1 / 8;
/** How long a segment compaction replaced stays open for readers that still hold it (Kafka's file.delete.delay.ms). */
const RETIRED_MS = 60_000;
/** What a read outside the stored batches returns. */
const NOTHING: Buffer = Buffer.alloc(0);

export class PartitionLog {
  private options: ResolvedLogOptions;
  private readonly segments: Segment[];
  private readonly states: ProducerStates;
  private readonly tail: TailCache;
  private readonly oldSegments = new SegmentCache(OPEN_OLD_SEGMENTS);
  private logEnd: number;
  private hw: number;
  /** Where DeleteRecords moved the log start; retention moves it by deleting segments. */
  private startOffset: number;
  private queue: PendingWrite[] = [];
  /** Holds the queued batches; its spare holds those of the write in progress. */
  private staging = new StagingBuffer();
  private spareStaging = new StagingBuffer();
  private queued = new Turn();
  private inFlight: Turn | undefined;
  private scheduled = false;
  private writing = false;
  private drained: Promise<void> = Promise.resolve();
  /** The segment the writer appends to, which lags `active` until a rolled segment's first write. */
  private writeSegment: Segment;
  /** When the active segment was started, or this run began: segment.ms for batches without timestamps. */
  private activeSince = Date.now();
  /** Offset after the last batch in the files. */
  private writtenEnd: number;
  private syncWanted = false;
  private checkpointWanted = false;
  private synced: { segment: Segment; position: number };
  private checkpointed: { segment: Segment; position: number };
  private maintenance: Promise<void> = Promise.resolve();
  private retaining: Promise<void> | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Segments compaction replaced, open for the readers that still hold them, until RETIRED_MS later. */
  private readonly retired = new Set<Segment>();
  private failure: Error | undefined;
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
    this.segments = segments;
    this.states = states;
    this.logEnd = logEnd;
    this.startOffset = startOffset;
    this.hw = logEnd;
    this.writtenEnd = logEnd;
    this.tail = new TailCache(options.tailCacheBytes);
    this.writeSegment = this.active;
    this.synced = { segment: this.active, position: this.active.size };
    this.checkpointed = this.synced;
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
    log.startTimers();
    return log;
  }

  /** The first offset served: below it, reads answer nothing, as if those records were gone. */
  get logStartOffset(): number {
    return Math.max(this.startOffset, this.oldestBase);
  }

  /** Next offset to assign; counts batches queued but not yet written. */
  get logEndOffset(): number {
    return this.logEnd;
  }

  /** Every batch below it is in the file (and fsynced under flush 'always'); reads stop here. */
  get highWatermark(): number {
    return this.hw;
  }

  /** Whether a write failed: the partition takes nothing more, and its producer state may hold batches that are not on disk. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  producerState(producerId: bigint): ProducerEntry | undefined {
    return this.states.get(producerId);
  }

  producers(): Iterable<[bigint, ProducerEntry]> {
    return this.states.entries();
  }

  /**
   * Appends a batch the caller has validated and, for producerId >= 0, checked with the
   * idempotence rules: writes its base offset into `batch` and copies it, so the caller may
   * reuse `batch`'s memory once this returns. Returns the base offset.
   */
  append(batch: Buffer, header: BatchHeader, now: number): number {
    if (this.failure !== undefined) throw this.failedError();
    if (this.closing !== undefined) throw new Error(`partition log ${this.dir} is closed`);
    if (header.size !== batch.length) throw new RangeError(`batch holds ${batch.length} bytes, its header says ${header.size}`);
    const baseOffset = this.logEnd;
    const end = baseOffset + header.lastOffsetDelta + 1;
    let segment = this.active;
    if (this.shouldRoll(segment, header, baseOffset, now)) segment = this.roll(now);
    assignBaseOffset(batch, 0, baseOffset);
    // Copied before any state changes, so that a failed allocation leaves the log as it was.
    const staged = this.staging.add(batch);
    segment.place(baseOffset, header, this.options.indexIntervalBytes);
    this.states.apply(header, baseOffset, now);
    this.logEnd = end;

    const last = this.queue[this.queue.length - 1];
    if (last?.segment === segment) {
      last.buffers.push(staged);
      last.indexEntries = segment.appendIndex.entries;
      last.end = end;
    } else {
      this.queue.push({ segment, buffers: [staged], indexEntries: segment.appendIndex.entries, end });
    }
    this.queued.end = end;
    this.tail.push(baseOffset, end, staged);
    this.schedule();
    return baseOffset;
  }

  /** Runs with `options` from now on: retention from its next check, segment sizes from the next roll. */
  configure(options: LogOptions): void {
    this.options = resolveLogOptions(options);
  }

  /** Resolves once `offset` is below the high watermark; rejects if its write failed. */
  whenWritten(offset: number): Promise<void> {
    if (offset < this.hw) return Promise.resolve();
    if (this.failure !== undefined) return Promise.reject(this.failedError());
    if (offset >= this.logEnd) return Promise.reject(new RangeError(`offset ${offset} is not below the log end ${this.logEnd}`));
    if (this.inFlight !== undefined && offset < this.inFlight.end) return this.inFlight.wait();
    return this.queued.wait();
  }

  /**
   * Stored batches, verbatim and back to back, from the one holding `fetchOffset` up to the high
   * watermark: as many whole batches as fit in `maxBytes` (from disk: from one segment, and up to
   * SKIPPED_SHARE of `maxBytes` fewer), but at least one. Empty if `fetchOffset` is outside
   * [logStartOffset, highWatermark), retention having raced included. The bytes are in memory
   * from `memory`. Batches from disk are checked (their headers; their CRC where no check since
   * the start vouched for them): a damaged one ends them, and LogDamageError is thrown when it is
   * the first.
   */
  async read(fetchOffset: number, maxBytes: number, memory?: ReadMemory): Promise<Buffer> {
    const hw = this.hw;
    if (fetchOffset < this.logStartOffset || fetchOffset >= hw) return NOTHING;
    const cached = this.tail.read(fetchOffset, maxBytes, hw, memory);
    if (cached !== undefined) return cached;
    // A segment holding nothing at or after the offset (cut short, or one missing, while brook
    // was stopped) hands on to the next, as in Kafka, so that consumers get past the gap.
    let offset = fetchOffset;
    for (
      let segment: Segment | undefined = this.segmentFor(fetchOffset);
      segment !== undefined && segment.baseOffset < hw;
      segment = this.segmentAfter(segment)
    ) {
      if (fetchOffset < this.logStartOffset) return NOTHING; // retention has raced
      // Batches compaction emptied are passed over as gaps are, when they are all an answer
      // would hold: a consumer given only them (kafkajs) may not move past them.
      for (let bytes = await this.readSegment(segment, offset, maxBytes, hw, memory); bytes.length > 0;) {
        if (holdsRecords(bytes)) return bytes;
        offset = offsetAfter(bytes);
        bytes = await this.readSegment(segment, offset, maxBytes, hw, memory);
      }
    }
    return NOTHING;
  }

  /** What read() answers from one segment: nothing if no batch in it reaches `fetchOffset`. */
  private readSegment(segment: Segment, fetchOffset: number, maxBytes: number, hw: number, memory: ReadMemory | undefined): Promise<Buffer> {
    return this.fromSegment(segment, NOTHING, async (log) => {
      const start = (await segment.index()).floorOffset(fetchOffset - segment.baseOffset);
      const end = segment.written;
      if (start.position >= end) return NOTHING;
      // One read of maxBytes from the index entry on, which usually holds the batch wanted and
      // what follows it.
      const read = await readAt(log, start.position, Math.min(end - start.position, Math.max(maxBytes, BATCH_HEADER_SIZE)), memory);
      let found: { position: number; size: number; baseOffset: number } | undefined;
      const due = segment.baseOffset + start.relativeOffset;
      const scan = await scanBatches(log, { from: start.position, to: end, verify: false, nextOffset: due, read }, (header, position) => {
        if (header.baseOffset >= hw) return false;
        if (header.baseOffset + header.lastOffsetDelta < fetchOffset) return true;
        found = { position, size: header.size, baseOffset: header.baseOffset };
        return false;
      });
      if (found === undefined) {
        if (scan.problem === undefined) return NOTHING;
        throw new LogDamageError(segment.logPath, scan.end, scan.nextOffset ?? due, scan.problem, scan.corrupt === true);
      }
      const at = found.position - start.position;
      // The bytes before the batch are room lost from maxBytes: taken up to a share of it, or when
      // the read holds all there is; otherwise a second read, from the batch.
      const usable = at + found.size <= read.length && (at <= maxBytes * SKIPPED_SHARE || start.position + read.length >= end);
      const bytes = usable ? read.subarray(at) : await readAt(log, found.position, Math.min(end - found.position, Math.max(maxBytes, found.size)), memory);
      const intact = intactBatches(bytes, maxBytes, hw, found.baseOffset, segment.checkedFrom - found.position);
      if (intact.problem !== undefined) throw new LogDamageError(segment.logPath, found.position, found.baseOffset, intact.problem, intact.corrupt === true);
      return bytes.subarray(0, intact.length);
    });
  }

  /** The largest batch time in the log, -1 when it is empty or has none (ListOffsets MAX_TIMESTAMP). */
  async maxTimestamp(): Promise<number> {
    let largest = -1;
    for (const segment of [...this.segments]) {
      if (segment.baseOffset >= this.hw) break;
      largest = Math.max(largest, await this.fromSegment(segment, -1, () => segment.largest()));
    }
    return largest;
  }

  /**
   * The first batch reaching `from` (the log start unless later) whose records may reach
   * `timestamp` (ListOffsets): its base offset (or `from`, if that lies inside it) and time. A batch
   * stored with its max timestamp unset is a candidate whatever its time: its records say.
   */
  async offsetForTimestamp(timestamp: number, from = 0): Promise<{ offset: number; timestamp: number } | undefined> {
    const hw = this.hw;
    const logStart = Math.max(this.logStartOffset, from);
    for (const segment of [...this.segments]) {
      if (segment.baseOffset >= hw) break;
      const found = await this.fromSegment(segment, undefined, async (log) => {
        if ((await segment.largest()) < timestamp) return undefined;
        const start = (await segment.index()).floorTimestamp(timestamp);
        let hit: { offset: number; timestamp: number } | undefined;
        await scanBatches(log, { from: start.position, to: segment.written, verify: false }, (header) => {
          if (header.baseOffset >= hw) return false;
          if ((header.maxTimestamp !== -1 && header.maxTimestamp < timestamp) || header.baseOffset + header.lastOffsetDelta < logStart) return true;
          hit = { offset: Math.max(header.baseOffset, logStart), timestamp: batchTime(header) };
          return false;
        });
        return hit;
      });
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /**
   * Moves the log start up to `offset` (DeleteRecords); OffsetOutOfRangeError for an offset below
   * zero or past the high watermark. The start is stored before it is served, so a restart keeps
   * it; the segments then wholly below it are deleted, and a segment it lies inside stays, its
   * records below it unserved.
   */
  advanceLogStart(offset: number): Promise<void> {
    if (this.closing !== undefined) return Promise.reject(new Error(`partition log ${this.dir} is closed`));
    if (offset < 0 || offset > this.hw) return Promise.reject(new OffsetOutOfRangeError(`offset ${offset} is outside [0, ${this.hw}], the high watermark`));
    // Queued behind segment deletions and snapshot writes, which close() waits for too.
    const stored = this.maintenance.then(async () => {
      if (offset <= this.logStartOffset) return;
      await writeLogStartOffset(this.dir, offset);
      this.startOffset = offset;
      let below = 0;
      while (below < this.segments.length - 1 && this.belowStart(this.segments[below + 1]!)) below++;
      if (below > 0) this.deleteOldest(below, 'deleted segments below the log start');
    });
    this.maintenance = stored.catch(() => {});
    return stored;
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
    readonly time: (segment: Segment) => Promise<number>;
  } {
    return {
      segments: this.segments.slice(0, this.segments.indexOf(this.writeSegment)),
      end: this.writeSegment.baseOffset,
      indexIntervalBytes: this.options.indexIntervalBytes,
      time: (segment) => this.fromSegment(segment, -1, () => segment.largest()),
    };
  }

  /**
   * Puts `cleaned`, a compacted copy of `old` with the same base offset, in its place once
   * `commit` has swapped their files; queued with segment deletions. False, nothing committed,
   * if `old` is no longer in the log. A failed commit fails the partition: a restart finishes or
   * undoes the swap.
   */
  replaceSegment(old: Segment, cleaned: Segment, commit: () => Promise<void>): Promise<boolean> {
    const replaced = this.maintenance.then(async () => {
      const at = this.segments.indexOf(old);
      if (at < 0 || this.closing !== undefined || this.failure !== undefined) return false;
      await old.retire();
      this.oldSegments.forget(old);
      this.retired.add(old);
      setTimeout(() => {
        if (this.retired.delete(old)) old.close().catch(() => {});
      }, RETIRED_MS).unref();
      try {
        await commit();
      } catch (err) {
        this.fail(err as Error);
        throw err;
      }
      this.segments[at] = cleaned;
      this.tail.forgetBelow(this.segments[at + 1]!.baseOffset);
      return true;
    });
    this.maintenance = replaced.then(
      () => {},
      () => {},
    );
    return replaced;
  }

  /** Writes what is queued, stores producer state and leaves the clean-shutdown recovery point. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private get active(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  private shouldRoll(segment: Segment, header: BatchHeader, baseOffset: number, now: number): boolean {
    if (segment.size === 0) return false;
    // As Kafka: batch time against the first batch's, so old timestamps do not roll every batch.
    const first = segment.firstTimestamp ?? -1;
    const age = first >= 0 ? header.maxTimestamp - first : now - this.activeSince;
    return segment.size + header.size > this.options.segmentBytes || age > this.options.segmentMs || baseOffset - segment.baseOffset > MAX_RELATIVE_OFFSET;
  }

  /** A new active segment at the log end, carrying the producer state there for its snapshot. */
  private roll(now: number): Segment {
    this.activeSince = now;
    const segment = new Segment(this.dir, this.logEnd, 0, OffsetIndex.empty());
    segment.rollSnapshot = this.states.encode(this.logEnd);
    this.segments.push(segment);
    return segment;
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drained = this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.failure === undefined && (this.queue.length > 0 || this.syncWanted || this.checkpointWanted)) {
        const writes = this.queue;
        const turn = this.queued;
        const staged = this.staging;
        this.queue = [];
        this.queued = new Turn();
        this.staging = this.spareStaging;
        this.inFlight = turn;
        for (const write of writes) await this.write(write);
        staged.reset();
        this.spareStaging = staged;
        const checkpoint = this.checkpointWanted;
        if (checkpoint || this.syncWanted || (this.options.flush === 'always' && writes.length > 0)) {
          this.syncWanted = false;
          this.checkpointWanted = false;
          await this.syncActive(checkpoint);
        }
        if (this.failure !== undefined) break;
        if (writes.length > 0) this.hw = turn.end;
        this.inFlight = undefined;
        turn.settle();
      }
    } catch (err) {
      this.fail(err as Error);
    } finally {
      this.writing = false;
    }
  }

  private async write(write: PendingWrite): Promise<void> {
    const { segment } = write;
    if (segment !== this.writeSegment) {
      const previous = this.writeSegment;
      await segment.openForAppend(true);
      if (this.options.flush === 'always') {
        await previous.sync(false);
        await syncDir(this.dir);
      }
      this.writeSegment = segment;
      this.afterRoll(previous, segment);
    }
    await segment.write(write.buffers, write.indexEntries);
    this.writtenEnd = write.end;
  }

  /** fsyncs the active segment; a checkpoint also fsyncs its index and records the recovery point. */
  private async syncActive(checkpoint: boolean): Promise<void> {
    const segment = this.writeSegment;
    const point = { segmentBase: segment.baseOffset, position: segment.written, nextOffset: this.writtenEnd };
    await segment.sync(checkpoint);
    this.synced = { segment, position: point.position };
    if (!checkpoint) return;
    this.checkpointed = this.synced;
    this.background(false, 'recording the recovery point', () => writeRecoveryPoint(this.dir, point));
  }

  /** The rolled-away segment is fsynced in the background; then the producer snapshot and recovery point are stored. */
  private afterRoll(previous: Segment, segment: Segment): void {
    const snapshot = segment.rollSnapshot;
    segment.rollSnapshot = undefined;
    this.background(true, 'sealing a rolled segment', async () => {
      await previous.seal();
      if (!previous.deleted) this.oldSegments.touch(previous);
    });
    if (snapshot !== undefined) {
      this.background(false, 'storing a producer snapshot', () => writeSnapshot(this.dir, segment.baseOffset, snapshot, this.oldestBase));
    }
    const point = { segmentBase: segment.baseOffset, position: 0, nextOffset: segment.baseOffset };
    this.background(false, 'recording the recovery point', () => writeRecoveryPoint(this.dir, point));
  }

  /** Runs `task` after earlier ones; a failed critical task (an fsync) fails the partition. */
  private background(critical: boolean, what: string, task: () => Promise<void>): void {
    this.maintenance = this.maintenance.then(task).catch((err: Error) => {
      if (critical) this.fail(err);
      else this.options.report.warn(`partition log: ${what} failed`, { dir: this.dir, error: err.message });
    });
  }

  private requestSync(checkpoint: boolean): void {
    const last = checkpoint ? this.checkpointed : this.synced;
    if (last.segment === this.writeSegment && last.position === this.writeSegment.written) return;
    if (checkpoint) this.checkpointWanted = true;
    else this.syncWanted = true;
    this.schedule();
  }

  private async retain(now: number): Promise<void> {
    if (this.closing !== undefined || this.failure !== undefined) return;
    const { retentionMs, retentionBytes, producerIdExpirationMs } = this.options;
    // A copy, since DeleteRecords may delete the oldest segments meanwhile.
    const segments = [...this.segments];
    let total = segments.reduce((sum, s) => sum + s.size, 0);
    let doomed = 0;
    for (let i = 0; i < segments.length - 1; i++) {
      const segment = segments[i]!;
      if (segments[i + 1]!.baseOffset > this.hw) break;
      const byStart = this.belowStart(segments[i + 1]!);
      const bySize = !byStart && retentionBytes >= 0 && total - segment.size >= retentionBytes;
      const byTime = !byStart && !bySize && retentionMs >= 0 && now - (await this.fromSegment(segment, now, () => segment.retentionTime())) > retentionMs;
      if (!byStart && !bySize && !byTime) break;
      total -= segment.size;
      doomed++;
    }
    // Up to the last doomed segment still there: those before it may be gone already.
    const count = doomed === 0 ? 0 : this.segments.indexOf(segments[doomed - 1]!) + 1;
    if (count > 0 && this.closing === undefined) this.deleteOldest(count, 'retention deleted segments');
    this.states.expire(now, producerIdExpirationMs);
    await this.maintenance;
  }

  /** Whether the segment before `next` holds only offsets below the log start. */
  private belowStart(next: Segment): boolean {
    return next.baseOffset <= this.startOffset;
  }

  /** Deletes the oldest `count` segments, never the active one, and the producer snapshots before them. */
  private deleteOldest(count: number, what: string): void {
    const deleted = this.segments.splice(0, count);
    this.options.report.info(what, { dir: this.dir, segments: deleted.length, logStartOffset: this.logStartOffset });
    for (const segment of deleted) {
      this.oldSegments.forget(segment);
      this.background(false, 'deleting a segment', () => segment.delete());
    }
    this.background(false, 'pruning producer snapshots', () => pruneSnapshots(this.dir, this.oldestBase));
  }

  /**
   * Where the oldest segment starts. Producer snapshots are kept from here, not from the log
   * start: recovery replays a segment from its start.
   */
  private get oldestBase(): number {
    return this.segments[0]!.baseOffset;
  }

  /** Runs `fn` on an old or active segment's file; if retention deleted the segment meanwhile, `gone`. */
  private async fromSegment<T>(segment: Segment, gone: T, fn: (log: FileHandle) => Promise<T>): Promise<T> {
    if (segment !== this.active) this.oldSegments.touch(segment);
    try {
      return await segment.use(fn);
    } catch (err) {
      if (segment.deleted) return gone;
      throw err;
    }
  }

  private segmentFor(offset: number): Segment {
    return this.segments[this.segmentIndexFor(offset)]!;
  }

  /** The segment after `segment` by base offset, if any; `segment` may have been deleted meanwhile. */
  private segmentAfter(segment: Segment): Segment | undefined {
    const i = this.segmentIndexFor(segment.baseOffset);
    return this.segments[i]!.baseOffset > segment.baseOffset ? this.segments[i] : this.segments[i + 1];
  }

  /** The index of the last segment whose base offset is at most `offset`, or 0. */
  private segmentIndexFor(offset: number): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.segments[mid]!.baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private startTimers(): void {
    const every = (ms: number, task: () => void): void => {
      const timer = setInterval(task, ms);
      timer.unref();
      this.timers.push(timer);
    };
    const { flush } = this.options;
    if (typeof flush === 'object') every(flush.intervalMs, () => this.requestSync(false));
    every(this.options.checkpointIntervalMs, () => this.requestSync(true));
    every(this.options.retentionCheckIntervalMs, () => {
      this.enforceRetention(Date.now()).catch((err: Error) => {
        this.options.report.warn('partition log: retention failed', { dir: this.dir, error: err.message });
      });
    });
  }

  private fail(error: Error): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.options.report.warn('partition log failed: refusing appends until restarted', { dir: this.dir, error: error.message });
    const failed = this.failedError();
    this.inFlight?.settle(failed);
    this.queued.settle(failed);
    this.queue = [];
  }

  private failedError(): Error {
    return new Error(`partition log ${this.dir} failed: ${this.failure?.message}`, { cause: this.failure });
  }

  private async shutDown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    if (this.scheduled) await new Promise((resolve) => setImmediate(resolve));
    await this.drained;
    await this.retaining?.catch(() => {});
    await this.maintenance;
    if (this.failure === undefined) {
      const active = this.active;
      await active.sync(true);
      await writeSnapshot(this.dir, this.logEnd, this.states.encode(this.logEnd), this.oldestBase);
      await writeRecoveryPoint(this.dir, { segmentBase: active.baseOffset, position: active.size, nextOffset: this.logEnd });
    }
    await Promise.all([...this.segments, ...this.retired].map((s) => s.close()));
  }
}
