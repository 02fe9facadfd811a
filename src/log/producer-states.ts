/**
 * The idempotence state of every producer of one partition, kept in step with the log, with the
 * partition's transactions (each open one's first offset, and the aborted ones, as Kafka's
 * producer state and .txnindex keep them), and its snapshot format.
 *
 * Snapshot (`<offset>.snapshot`, the state after every batch below offset), big-endian:
 *   crc32c of the rest (u32) | version (u16) | offset (i64) | producer count (u32) |
 *   per producer: id (i64) | epoch (i16) | lastTimestamp (i64) | writtenAt (i64) | open transaction's first offset (i64, -1 for none) |
 *                 window length (u8) | per window entry, oldest first: firstSeq (i32) | lastSeq (i32) | baseOffset (i64)
 *   aborted transaction count (u32) | per aborted transaction: producer id (i64) | first offset (i64) | marker offset (i64)
 * Version 1 had no writtenAt: its producers count as written when the snapshot is loaded.
 * Versions 1 and 2 had no transactions.
 */
import { commit, WINDOW_SIZE, type ProducerState, type WindowEntry } from '../idempotence/rules.js';
import { crc32c } from '../protocol/crc32c.js';
import { isControl, isTransactional, type BatchHeader, type Marker } from '../protocol/record-batch.js';

/** A transaction aborted on the partition: its producer's records from firstOffset up to the marker at lastOffset are to be dropped by read_committed consumers. */
export interface AbortedTxn {
  readonly producerId: bigint;
  readonly firstOffset: number;
  readonly lastOffset: number;
}

export interface ProducerEntry {
  readonly state: ProducerState;
  /** maxTimestamp of the producer's newest batch, the client's clock (DescribeProducers shows it). */
  readonly lastTimestamp: number;
  /**
   * When the broker appended the producer's newest batch, by its own clock: expiry counts from
   * it, so a producer stamping old event times (or -1) is not forgotten while it writes. Replayed
   * batches count as written at the replay.
   */
  readonly writtenAt: number;
}

const VERSION = 3;
const HEADER_SIZE = 18;
/** Producer entries by version: version 2 added writtenAt, version 3 the open transaction's first offset. */
const PRODUCER_SIZES = [0, 19, 27, 35];
const WINDOW_ENTRY_SIZE = 16;
const ABORTED_SIZE = 24;

export class ProducerStates {
  private readonly byId = new Map<bigint, ProducerEntry>();
  /**
   * The first offset of each producer's open transaction, in the order they began: the first is
   * the oldest, where the last stable offset stops.
   */
  private readonly openTxns = new Map<bigint, number>();
  /** Aborted transactions, in marker order. */
  private aborted: AbortedTxn[] = [];

  get(producerId: bigint): ProducerEntry | undefined {
    return this.byId.get(producerId);
  }

  entries(): IterableIterator<[bigint, ProducerEntry]> {
    return this.byId.entries();
  }

  /**
   * The one way state follows the log: appends and recovery's replay both come through here.
   * `marker` says what a control batch marks.
   */
  apply(header: BatchHeader, baseOffset: number, writtenAt: number, marker?: Marker): void {
    const id = header.producerId;
    if (id < 0n) return;
    const previous = this.byId.get(id)?.state;
    if (isControl(header.attributes)) {
      // A marker carries no sequence: it moves the epoch (a new one starts a new numbering) and ends the transaction.
      const state = previous?.epoch === header.producerEpoch ? previous : { epoch: header.producerEpoch, window: [] };
      this.byId.set(id, { state, lastTimestamp: header.maxTimestamp, writtenAt });
      const firstOffset = this.openTxns.get(id);
      if (firstOffset === undefined) return;
      this.openTxns.delete(id);
      if (marker === 'abort') this.aborted.push({ producerId: id, firstOffset, lastOffset: baseOffset });
      return;
    }
    const batch = { epoch: header.producerEpoch, firstSeq: header.baseSequence, count: header.recordCount };
    this.byId.set(id, { state: commit(previous, batch, baseOffset), lastTimestamp: header.maxTimestamp, writtenAt });
    if (isTransactional(header.attributes) && !this.openTxns.has(id)) this.openTxns.set(id, baseOffset);
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

  /** Forgets the aborted transactions wholly below the log start, as Kafka deletes a segment's .txnindex with it. */
  pruneAborted(logStartOffset: number): void {
    if (this.aborted[0] !== undefined && this.aborted[0].lastOffset < logStartOffset) this.aborted = this.aborted.filter((a) => a.lastOffset >= logStartOffset);
  }

  /** Forgets producers that have not written for `expirationMs` and have no transaction open; returns how many. */
  expire(now: number, expirationMs: number): number {
    let expired = 0;
    for (const [id, entry] of this.byId) {
      if (now - entry.writtenAt >= expirationMs && !this.openTxns.has(id)) {
        this.byId.delete(id);
        expired++;
      }
    }
    return expired;
  }

  encode(offset: number): Buffer {
    let size = HEADER_SIZE;
    for (const entry of this.byId.values()) size += PRODUCER_SIZES[VERSION]! + entry.state.window.length * WINDOW_ENTRY_SIZE;
    size += 4 + this.aborted.length * ABORTED_SIZE;
    const buf = Buffer.alloc(size);
    buf.writeUInt16BE(VERSION, 4);
    buf.writeBigInt64BE(BigInt(offset), 6);
    buf.writeUInt32BE(this.byId.size, 14);
    let pos = HEADER_SIZE;
    for (const [id, { state, lastTimestamp, writtenAt }] of this.byId) {
      pos = buf.writeBigInt64BE(id, pos);
      pos = buf.writeInt16BE(state.epoch, pos);
      pos = buf.writeBigInt64BE(BigInt(lastTimestamp), pos);
      pos = buf.writeBigInt64BE(BigInt(writtenAt), pos);
      pos = buf.writeBigInt64BE(BigInt(this.openTxns.get(id) ?? -1), pos);
      pos = buf.writeUInt8(state.window.length, pos);
      for (const e of state.window) {
        pos = buf.writeInt32BE(e.firstSeq, pos);
        pos = buf.writeInt32BE(e.lastSeq, pos);
        pos = buf.writeBigInt64BE(BigInt(e.baseOffset), pos);
      }
    }
    pos = buf.writeUInt32BE(this.aborted.length, pos);
    for (const a of this.aborted) {
      pos = buf.writeBigInt64BE(a.producerId, pos);
      pos = buf.writeBigInt64BE(BigInt(a.firstOffset), pos);
      pos = buf.writeBigInt64BE(BigInt(a.lastOffset), pos);
    }
    buf.writeUInt32BE(crc32c(buf.subarray(4)), 0);
    return buf;
  }

  /** The snapshot in `bytes`, or undefined if it is damaged in any way; `loadedAt` stands in for version 1's missing writtenAt. */
  static decode(bytes: Buffer, loadedAt: number): { offset: number; states: ProducerStates } | undefined {
    if (bytes.length < HEADER_SIZE || crc32c(bytes.subarray(4)) !== bytes.readUInt32BE(0)) return undefined;
    const version = bytes.readUInt16BE(4);
    if (version < 1 || version > VERSION) return undefined;
    const offset = Number(bytes.readBigInt64BE(6));
    const count = bytes.readUInt32BE(14);
    const states = new ProducerStates();
    const open: [bigint, number][] = [];
    let pos = HEADER_SIZE;
    try {
      for (let i = 0; i < count; i++) {
        const id = bytes.readBigInt64BE(pos);
        const epoch = bytes.readInt16BE(pos + 8);
        const lastTimestamp = Number(bytes.readBigInt64BE(pos + 10));
        const writtenAt = version === 1 ? loadedAt : Number(bytes.readBigInt64BE(pos + 18));
        const size = PRODUCER_SIZES[version]!;
        if (version >= 3) {
          const txnStart = Number(bytes.readBigInt64BE(pos + 26));
          if (txnStart >= 0) open.push([id, txnStart]);
        }
        const length = bytes.readUInt8(pos + size - 1);
        pos += size;
        if (length > WINDOW_SIZE) return undefined;
        const window: WindowEntry[] = [];
        for (let w = 0; w < length; w++, pos += WINDOW_ENTRY_SIZE) {
          window.push({
            firstSeq: bytes.readInt32BE(pos),
            lastSeq: bytes.readInt32BE(pos + 4),
            baseOffset: Number(bytes.readBigInt64BE(pos + 8)),
          });
        }
        states.byId.set(id, { state: { epoch, window }, lastTimestamp, writtenAt });
      }
      if (version >= 3) {
        for (let n = bytes.readUInt32BE(pos), i = 0; i < n; i++) {
          const at = pos + 4 + i * ABORTED_SIZE;
          states.aborted.push({
            producerId: bytes.readBigInt64BE(at),
            firstOffset: Number(bytes.readBigInt64BE(at + 8)),
            lastOffset: Number(bytes.readBigInt64BE(at + 16)),
          });
        }
        pos += 4 + states.aborted.length * ABORTED_SIZE;
      }
    } catch (err) {
      if (err instanceof RangeError) return undefined;
      throw err;
    }
    // Open transactions in the order they began.
    for (const [id, first] of open.sort((a, b) => a[1] - b[1])) states.openTxns.set(id, first);
    return pos === bytes.length ? { offset, states } : undefined;
  }
}
