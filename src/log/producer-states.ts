/**
 * The idempotence state of every producer of one partition, kept in step with the log, with the
 * partition's transactions (each open one's first offset, and the aborted ones, as Kafka's
 * `ProducerStateManager` and `TransactionIndex` (.txnindex) keep them), and its snapshots (format: producer-snapshot.ts).
 * States are packed in a ProducerTable; the rules' states are made from it when asked for.
 */
import {
  decide,
  REPLAY,
  type Accepted,
  type AppendContext,
  type Decision,
  type PartitionProducer,
  type ProducerBatch,
} from '../idempotence/producer-decision.js';
import { WINDOW_SIZE } from '../idempotence/rules.js';
import { isControl, isTransactional, type BatchHeader, type Marker } from '../protocol/record-batch.js';
import { decodeSnapshot, SnapshotEncoding, type AbortedTxn } from './producer-snapshot.js';
import { FREE_SLOT, ProducerTable } from './producer-table.js';

export type { AbortedTxn } from './producer-snapshot.js';

export interface ProducerEntry {
  readonly state: PartitionProducer;
  /** maxTimestamp of the producer's newest batch, the client's clock (DescribeProducers shows it). */
  readonly lastTimestamp: number;
  /**
   * When the broker appended the producer's newest batch, by its own clock: expiry counts from
   * it, so a producer stamping old event times (or -1) is not forgotten while it writes. Replayed
   * batches count as written at the replay.
   */
  readonly writtenAt: number;
}

export type TransactionOutcome = 'committed' | 'aborted' | 'open';

/** Producers a snapshot encodes per event-loop turn: well under a millisecond's work. */
const SLICE = 2048;

export class ProducerStates {
  private readonly table = new ProducerTable();
  /**
   * The first offset of each producer's open transaction, in the order they began: the first is
   * the oldest, where the last stable offset stops.
   */
  private readonly openTxns = new Map<bigint, number>();
  /** Aborted transactions, in marker order. */
  private aborted: AbortedTxn[] = [];

  get(producerId: bigint): ProducerEntry | undefined {
    const slot = this.table.slotOf(producerId);
    return slot === undefined ? undefined : this.entry(slot);
  }

  *entries(): IterableIterator<[bigint, ProducerEntry]> {
    const t = this.table;
    for (let slot = 0; slot < t.used; slot++) if (t.lengths[slot] !== FREE_SLOT) yield [t.ids[slot]!, this.entry(slot)];
  }

  /** The base offsets in [from, to) of batches in a producer's window, read in place: what compaction must keep there. */
  windowOffsets(from: number, to: number): number[] {
    const t = this.table;
    const offsets: number[] = [];
    for (let slot = 0; slot < t.used; slot++) {
      const length = t.lengths[slot]!;
      if (length === FREE_SLOT) continue;
      for (let i = 0, at = slot * WINDOW_SIZE; i < length; i++, at++) {
        const offset = t.bases[at]!;
        if (offset >= from && offset < to) offsets.push(offset);
      }
    }
    return offsets;
  }

  /**
   * The producer decision (idempotence/producer-decision.ts) on a batch about to be appended at
   * `baseOffset`; changes nothing. Undefined for a batch of no producer (producer id -1).
   */
  decide(header: BatchHeader, baseOffset: number, context: AppendContext | typeof REPLAY): Decision | undefined {
    const id = header.producerId;
    if (id < 0n) return undefined;
    const slot = this.table.slotOf(id);
    return decide(slot === undefined ? undefined : this.table.state(slot), producerBatch(header), baseOffset, context);
  }

  /**
   * The one way state follows the log: the state `accepted` gives, for a batch of `producerId`
   * written with `lastTimestamp`; `marker` says what a control batch marks.
   */
  apply(producerId: bigint, accepted: Accepted, lastTimestamp: number, writtenAt: number, marker?: Marker): void {
    const t = this.table;
    const slot = t.slotOf(producerId) ?? t.add(producerId);
    const wasOpen = t.txnStarts[slot]! >= 0;
    const { txnStart } = accepted.next;
    t.set(slot, accepted.next, lastTimestamp, writtenAt);
    if (txnStart >= 0 && !wasOpen) this.openTxns.set(producerId, txnStart);
    if (txnStart >= 0 || !wasOpen) return;
    const firstOffset = this.openTxns.get(producerId)!;
    this.openTxns.delete(producerId);
    if (marker === 'abort') this.aborted.push({ producerId, firstOffset, lastOffset: accepted.baseOffset });
  }

  /** Recovery's replay of a batch the log holds at `baseOffset`, through the same decision appends take. */
  replay(header: BatchHeader, baseOffset: number, writtenAt: number, marker?: Marker): void {
    const decision = this.decide(header, baseOffset, REPLAY);
    if (decision?.kind === 'append') this.apply(header.producerId, decision, header.maxTimestamp, writtenAt, marker);
  }

  /** The first offset of the producer's open transaction on the partition. */
  openTxnStart(producerId: bigint): number | undefined {
    return this.openTxns.get(producerId);
  }

  /** The first offset of the oldest open transaction. */
  firstUnstableOffset(): number | undefined {
    for (const first of this.openTxns.values()) return first;
    return undefined;
  }

  /** The aborted transactions whose records may lie in [from, to): their markers at or after `from`, their first offsets before `to`. */
  abortedBetween(from: number, to: number): AbortedTxn[] {
    return this.aborted.filter((a) => a.lastOffset >= from && a.firstOffset < to);
  }

  /**
   * Where a record of the producer's transactional batch at `offset` stands, by what read_committed
   * reads use: aborted if an aborted transaction of its producer spans it (its ABORT marker
   * follows), open if it is in the producer's open transaction, else committed.
   */
  transactionOutcome(producerId: bigint, offset: number): TransactionOutcome {
    if (this.abortedBetween(offset, offset + 1).some((a) => a.producerId === producerId && a.firstOffset <= offset)) return 'aborted';
    const open = this.openTxns.get(producerId);
    return open !== undefined && offset >= open ? 'open' : 'committed';
  }

  /** Forgets the aborted transactions wholly below the log start, as Kafka's `LogSegment.deleteIfExists` deletes a segment's .txnindex with it. */
  pruneAborted(logStartOffset: number): void {
    if (this.aborted[0] !== undefined && this.aborted[0].lastOffset < logStartOffset) this.aborted = this.aborted.filter((a) => a.lastOffset >= logStartOffset);
  }

  /** Forgets producers that have not written for `expirationMs` and have no transaction open; returns how many. */
  expire(now: number, expirationMs: number): number {
    const t = this.table;
    let expired = 0;
    for (let slot = 0; slot < t.used; slot++) {
      if (t.lengths[slot] !== FREE_SLOT && now - t.writtenAts[slot]! >= expirationMs && t.txnStarts[slot]! < 0) {
        t.remove(slot);
        expired++;
      }
    }
    return expired;
  }

  /** The snapshot at `offset` of the state now, encoded at once. */
  encode(offset: number): Buffer {
    const encoding = new SnapshotEncoding(this.table, offset, this.aborted);
    encoding.step(Infinity);
    return encoding.bytes();
  }

  /**
   * The snapshot at `offset` of the state now, encoded `perTurn` producers per event-loop turn,
   * so that a partition with many producers does not hold up appends while it is made; what
   * they change meanwhile does not reach it.
   */
  snapshot(offset: number, perTurn = SLICE): Promise<Buffer> {
    const encoding = new SnapshotEncoding(this.table, offset, this.aborted);
    this.table.watch(encoding);
    return new Promise((resolve, reject) => {
      const step = (): void => {
        let done = true;
        try {
          done = encoding.step(perTurn);
          if (done) resolve(encoding.bytes());
        } catch (err) {
          reject(err as Error);
        }
        if (done) this.table.unwatch(encoding);
        else setImmediate(step);
      };
      setImmediate(step);
    });
  }

  /** The snapshot in `bytes`, or undefined if it is damaged in any way; `loadedAt` stands in for version 1's missing writtenAt. */
  static decode(bytes: Buffer, loadedAt: number): { offset: number; states: ProducerStates } | undefined {
    const states = new ProducerStates();
    const decoded = decodeSnapshot(bytes, loadedAt, states.table);
    if (decoded === undefined) return undefined;
    for (const [id, first] of decoded.open) states.openTxns.set(id, first);
    states.aborted = decoded.aborted;
    return { offset: decoded.offset, states };
  }

  private entry(slot: number): ProducerEntry {
    const t = this.table;
    return { state: t.state(slot), lastTimestamp: t.lastTimestamps[slot]!, writtenAt: t.writtenAts[slot]! };
  }
}

/**
 * The one conversion of a batch into the decision's input. Sequences are counted by offsets, not
 * records, as Kafka's `DefaultRecordBatch.lastSequence()`: a batch compaction emptied keeps its sequences' span.
 */
function producerBatch(header: BatchHeader): ProducerBatch {
  const { attributes } = header;
  return {
    epoch: header.producerEpoch,
    firstSeq: header.baseSequence,
    count: header.lastOffsetDelta + 1,
    transactional: isTransactional(attributes),
    marker: isControl(attributes),
  };
}
