/**
 * The write queue of a partition: append() queues a copy of each batch; one writer then stores
 * everything queued, one vectored write per segment per turn, and, under flush 'always', one
 * fsync for all of it (group commit); the high watermark moves once that is done. A write error
 * fails the partition: nothing more is accepted, and only a restart (which re-reads the disk)
 * brings it back.
 */
import { syncDir } from '../files/durable-file.js';
import type { MemoryBudget } from '../memory/memory-budget.js';
import type { BackgroundTasks } from './background-tasks.js';
import type { ResolvedLogOptions } from './options.js';
import { writeRecoveryPoint, writeSnapshot, type RecoveryPoint } from './partition-files.js';
import type { Segment } from './segment.js';
import type { SegmentList } from './segment-list.js';
import { StagingBuffer } from './staging-buffer.js';

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

/**
 * Writers with batches queued this turn, written in one callback of the event loop's check phase
 * for all partitions: a partition's batches wait for no other's, and a turn pays one scheduled
 * callback, not one per partition.
 */
const due: PartitionWriter[] = [];

function writeSoon(writer: PartitionWriter): void {
  if (due.push(writer) === 1) setImmediate(writeDue);
}

function writeDue(): void {
  for (const writer of due.splice(0)) writer.startDrain();
}

/** Where the files were last fsynced up to. */
interface SyncPoint {
  readonly segment: Segment;
  readonly position: number;
}

export class PartitionWriter {
  /** Every batch below it is in the file (and fsynced under flush 'always'). */
  highWatermark: number;
  private failure: Error | undefined;
  private queue: PendingWrite[] = [];
  /** Holds the queued batches; its spare holds those of the write in progress. */
  private staging: StagingBuffer;
  private spareStaging: StagingBuffer;
  private queued = new Turn();
  private inFlight: Turn | undefined;
  private scheduled = false;
  private writing = false;
  private drained: Promise<void> = Promise.resolve();
  /** The segment written to, which lags the active one until a rolled segment's first write. */
  private writeSegment: Segment;
  /** Offset after the last batch in the files. */
  private writtenEnd: number;
  private syncWanted = false;
  private checkpointWanted = false;
  private synced: SyncPoint;
  private checkpointed: SyncPoint;
  /**
   * Recovery points and roll snapshots queued so far. One that a later one follows in the queue
   * is not written, as the later says more: a burst of rolls (small segments) writes each once,
   * not once a roll, so that what waits behind them (a cleaned segment's swap) waits less.
   */
  private pointsQueued = 0;
  private snapshotsQueued = 0;

  constructor(
    private readonly dir: string,
    private readonly segments: SegmentList,
    private readonly tasks: BackgroundTasks,
    private readonly options: () => ResolvedLogOptions,
    logEnd: number,
    memory: MemoryBudget,
  ) {
    this.staging = new StagingBuffer(memory);
    this.spareStaging = new StagingBuffer(memory);
    this.highWatermark = logEnd;
    this.writtenEnd = logEnd;
    this.writeSegment = segments.active;
    this.synced = { segment: this.writeSegment, position: this.writeSegment.size };
    this.checkpointed = this.synced;
  }

  /** The segment written to: those before it hold only written batches. */
  get writingTo(): Segment {
    return this.writeSegment;
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Copies `batch` for the next write; done before the partition's state changes, so that a failed allocation leaves it as it was. */
  stage(batch: Buffer): Buffer {
    return this.staging.add(batch);
  }

  /** Queues `staged` (from stage()), placed in `segment`, for the next write; `end` is the offset after it. */
  enqueue(segment: Segment, staged: Buffer, end: number): void {
    const last = this.queue[this.queue.length - 1];
    if (last?.segment === segment) {
      last.buffers.push(staged);
      last.indexEntries = segment.appendIndex.entries;
      last.end = end;
    } else {
      this.queue.push({ segment, buffers: [staged], indexEntries: segment.appendIndex.entries, end });
    }
    this.queued.end = end;
    this.schedule();
  }

  /** Resolves once `offset` (below `logEnd`) is below the high watermark; rejects if its write failed. */
  whenWritten(offset: number, logEnd: number): Promise<void> {
    if (offset < this.highWatermark) return Promise.resolve();
    if (this.failure !== undefined) return Promise.reject(this.failedError());
    if (offset >= logEnd) return Promise.reject(new RangeError(`offset ${offset} is not below the log end ${logEnd}`));
    if (this.inFlight !== undefined && offset < this.inFlight.end) return this.inFlight.wait();
    return this.queued.wait();
  }

  /** Asks the writer for an fsync of what it has written (a checkpoint: of the index too, and a recovery point), if there is anything new. */
  requestSync(checkpoint: boolean): void {
    const last = checkpoint ? this.checkpointed : this.synced;
    if (last.segment === this.writeSegment && last.position === this.writeSegment.written) return;
    if (checkpoint) this.checkpointWanted = true;
    else this.syncWanted = true;
    this.schedule();
  }

  /** Resolves once everything queued so far is written (or has failed). */
  async finished(): Promise<void> {
    if (this.scheduled) await new Promise((resolve) => setImmediate(resolve));
    await this.drained;
  }

  /** Gives the staging buffers' memory back (copies queued keep theirs until written). */
  releaseMemory(): void {
    this.staging.release();
    this.spareStaging.release();
  }

  fail(error: Error): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.options().report.warn('partition log failed: refusing appends until restarted', { dir: this.dir, error: error.message });
    const failed = this.failedError();
    this.inFlight?.settle(failed);
    this.queued.settle(failed);
    this.queue = [];
  }

  failedError(): Error {
    return new Error(`partition log ${this.dir} failed: ${this.failure?.message}`, { cause: this.failure });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    writeSoon(this);
  }

  /** Called once per turn it was scheduled for: writes what is queued. */
  startDrain(): void {
    this.scheduled = false;
    this.drained = this.drain();
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
        for (const write of writes) {
          if (write.segment !== this.writeSegment) await this.startWriting(write.segment);
          write.segment.write(write.buffers, write.indexEntries);
          this.writtenEnd = write.end;
        }
        staged.reset();
        this.spareStaging = staged;
        const checkpoint = this.checkpointWanted;
        if (checkpoint || this.syncWanted || (this.options().flush === 'always' && writes.length > 0)) {
          this.syncWanted = false;
          this.checkpointWanted = false;
          await this.syncActive(checkpoint);
        }
        if (this.failure !== undefined) break;
        if (writes.length > 0) this.highWatermark = turn.end;
        this.inFlight = undefined;
        turn.settle();
      }
    } catch (err) {
      this.fail(err as Error);
    } finally {
      this.writing = false;
    }
  }

  /** The first write to a rolled segment: its files are made, and the one before is left to be sealed. */
  private async startWriting(segment: Segment): Promise<void> {
    const previous = this.writeSegment;
    await segment.openForAppend(true);
    if (this.options().flush === 'always') {
      await previous.sync(false);
      await syncDir(this.dir);
    }
    this.writeSegment = segment;
    this.afterRoll(previous, segment);
  }

  /** fsyncs the active segment; a checkpoint also fsyncs its index and records the recovery point. */
  private async syncActive(checkpoint: boolean): Promise<void> {
    const segment = this.writeSegment;
    const point = { segmentBase: segment.baseOffset, position: segment.written, nextOffset: this.writtenEnd };
    await segment.sync(checkpoint);
    this.synced = { segment, position: point.position };
    if (!checkpoint) return;
    this.checkpointed = this.synced;
    this.recordPoint(point);
  }

  /** The rolled-away segment is fsynced in the background; then the producer snapshot and recovery point are stored. */
  private afterRoll(previous: Segment, segment: Segment): void {
    const snapshot = segment.rollSnapshot;
    segment.rollSnapshot = undefined;
    this.tasks.run(true, 'sealing a rolled segment', async () => {
      await previous.seal();
      if (!previous.deleted) this.segments.touch(previous);
    });
    if (snapshot !== undefined) {
      const queued = ++this.snapshotsQueued;
      this.tasks.run(false, 'storing a producer snapshot', async () => {
        // Recovery starts from the newest snapshot: a later roll's, queued behind this one, will do.
        if (queued === this.snapshotsQueued) await writeSnapshot(this.dir, segment.baseOffset, await snapshot, this.segments.oldestBase);
      });
    }
    this.recordPoint({ segmentBase: segment.baseOffset, position: 0, nextOffset: segment.baseOffset });
  }

  /** Stores `point` once what it vouches for is fsynced (queued before it), unless a later point is queued by then. */
  private recordPoint(point: RecoveryPoint): void {
    const queued = ++this.pointsQueued;
    this.tasks.run(false, 'recording the recovery point', async () => {
      if (queued === this.pointsQueued) await writeRecoveryPoint(this.dir, point);
    });
  }
}
