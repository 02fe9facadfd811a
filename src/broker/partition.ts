/**
 * One partition as the broker serves it: its log, the turns its appends take in arrival order,
 * the fetches waiting for its next write, what Produce decided of its producers, and whether its
 * last read failed. Every writer appends through `turn` and `append`: Produce (the console's
 * too) and the transaction coordinator's markers, those it writes when it opens included.
 */
import type { AppendContext, RefusalKind } from '../idempotence/producer-decision.js';
import type { Verdict } from '../idempotence/rules.js';
import type { Appended, PartitionLog, Written } from '../log/partition-log.js';
import type { Storage } from '../log/storage.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { BatchHeader, Marker } from '../protocol/record-batch.js';
import { PartitionTurns } from './partition-turns.js';
import { ProducerCounts, type ProducerActivity } from './producer-activity.js';

type Wake = () => void;

export class Partition {
  /** What Produce decided of each idempotent producer's batches (the console's producers view). */
  readonly producerCounts = new ProducerCounts();
  /** Whether the last read failed: the failures in a row after the first go unlogged. */
  unreadable = false;
  private readonly turns = new PartitionTurns();
  private readonly waiting = new Set<Wake>();

  constructor(
    readonly topic: string,
    readonly index: number,
    readonly log: PartitionLog,
    private readonly all: Partitions,
  ) {}

  /**
   * Runs `take` (which appends) with `ready`'s value once every append queued before it is done:
   * at once, in this call, when `ready` is no promise and nothing waits; else queued behind them.
   */
  turn<T, R>(ready: T | Promise<T>, take: (value: T) => R): R | Promise<R> {
    if (!(ready instanceof Promise) && !this.turns.waiting) return take(ready);
    return this.turns.take(Promise.resolve(ready), take);
  }

  /** Whether an append arriving now waits behind another. */
  get turnsWaiting(): boolean {
    return this.turns.waiting;
  }

  /**
   * Why an append that waited for its turn finds the partition unable to take it: its topic deleted
   * meanwhile, or its log failed; undefined if it takes it.
   */
  get gone(): number | undefined {
    if (this.log.failed) return ErrorCode.KAFKA_STORAGE_ERROR;
    return this.all.storage.partition(this.topic, this.index) === this.log ? undefined : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  }

  /**
   * Appends `batch` in its turn (PartitionLog.append: the producer decision, then the log) and
   * counts what the decision was of a producer's data batch. Throws as the log's append does: only when its log has failed or closed.
   */
  append(batch: Buffer, header: BatchHeader, now: number, context: AppendContext, marker?: Marker): Appended {
    const appended = this.log.append(batch, header, now, context, marker);
    const verdict = appended.kind === 'refused' ? appended.verdict : appended.kind;
    if (marker === undefined && header.producerId >= 0n && isLessonVerdict(verdict)) {
      this.producerCounts.record(header.producerId, verdict);
      this.all.decided(this, header.producerId, verdict);
    }
    return appended;
  }

  /**
   * Resolves once `offset` is written, and wakes the fetches waiting on the partition; if its
   * write failed, with what `failed` gives, or rejects without it.
   */
  written(offset: number, failed?: (err: unknown) => void): Promise<void> {
    // One promise on the produce path, the failure's handler included.
    return this.log.whenWritten(offset).then(() => this.wake(), failed);
  }

  /** Until `wake` or the partition's next write, whichever comes first. */
  addWaiter(wake: Wake): void {
    this.waiting.add(wake);
  }

  removeWaiter(wake: Wake): void {
    this.waiting.delete(wake);
  }

  private wake(): void {
    // On the produce path: nothing copied while no fetch waits.
    if (this.waiting.size === 0) return;
    for (const wake of [...this.waiting]) wake();
  }
}

/** The lesson's verdicts, which metrics and the producers' counts keep; the transaction's refusals, and the log's own, are not among them. */
function isLessonVerdict(kind: Written['kind'] | RefusalKind | undefined): kind is Verdict['kind'] {
  return kind !== undefined && kind !== 'invalid_txn_state' && kind !== 'unknown_producer_id';
}

/** The broker's partitions: one `Partition` per partition log, gone with it. */
export class Partitions {
  private readonly byLog = new WeakMap<PartitionLog, Partition>();
  /** The wakes of waiting fetches, answered at once when the broker closes. */
  private readonly waits = new Set<Wake>();
  private closed = false;

  constructor(
    readonly storage: Storage,
    private readonly activity: ProducerActivity,
    private readonly onDecision: (verdict: Verdict['kind']) => void,
  ) {}

  /** The partition, if its topic has it. */
  get(topic: string, index: number): Partition | undefined {
    const log = this.storage.partition(topic, index);
    if (log === undefined) return undefined;
    let partition = this.byLog.get(log);
    if (partition === undefined) this.byLog.set(log, (partition = new Partition(topic, index, log, this)));
    return partition;
  }

  decided(partition: Partition, producerId: bigint, verdict: Verdict['kind']): void {
    this.onDecision(verdict);
    this.activity.tell(partition.topic, partition.index, producerId, verdict);
  }

  /** Whether a fetch may wait: not once the broker is closing, when every fetch is answered at once. */
  get open(): boolean {
    return !this.closed;
  }

  /** Resolves when any of `partitions` is written to, after `timeoutMs`, when closed, or once `until` (if given) resolves. */
  waitForWrite(partitions: readonly Partition[], timeoutMs: number, until?: Promise<void>): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const wake: Wake = () => {
        clearTimeout(timer);
        for (const partition of partitions) partition.removeWaiter(wake);
        this.waits.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      for (const partition of partitions) partition.addWaiter(wake);
      this.waits.add(wake);
      void until?.then(wake);
    });
  }

  /** Answers every waiting fetch now, and every later one without waiting: the broker is closing. */
  close(): void {
    this.closed = true;
    for (const wake of [...this.waits]) wake();
  }
}
