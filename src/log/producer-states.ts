/**
 * The idempotence state of every producer of one partition, kept in step with the log, and
 * its snapshot format.
 *
 * Snapshot (`<offset>.snapshot`, the state after every batch below offset), big-endian:
 *   crc32c of the rest (u32) | version (u16) | offset (i64) | producer count (u32) |
 *   per producer: id (i64) | epoch (i16) | lastTimestamp (i64) | writtenAt (i64) | window length (u8) |
 *                 per window entry, oldest first: firstSeq (i32) | lastSeq (i32) | baseOffset (i64)
 * Version 1 had no writtenAt: its producers count as written when the snapshot is loaded.
 */
import { commit, WINDOW_SIZE, type ProducerState, type WindowEntry } from '../idempotence/rules.js';
import { crc32c } from '../protocol/crc32c.js';
import type { BatchHeader } from '../protocol/record-batch.js';

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

const VERSION = 2;
const HEADER_SIZE = 18;
/** Version 1's producer entry, before writtenAt. */
const V1_PRODUCER_SIZE = 19;
const PRODUCER_SIZE = 27;
const WINDOW_ENTRY_SIZE = 16;

export class ProducerStates {
  private readonly byId = new Map<bigint, ProducerEntry>();

  get(producerId: bigint): ProducerEntry | undefined {
    return this.byId.get(producerId);
  }

  entries(): IterableIterator<[bigint, ProducerEntry]> {
    return this.byId.entries();
  }

  /** The one way state follows the log: appends and recovery's replay both come through here. */
  apply(header: BatchHeader, baseOffset: number, writtenAt: number): void {
    if (header.producerId < 0n) return;
    const previous = this.byId.get(header.producerId)?.state;
    // Counted by offsets, not records: a batch compaction emptied keeps its sequence numbers' span.
    const batch = { epoch: header.producerEpoch, firstSeq: header.baseSequence, count: header.lastOffsetDelta + 1 };
    this.byId.set(header.producerId, { state: commit(previous, batch, baseOffset), lastTimestamp: header.maxTimestamp, writtenAt });
  }

  /** Forgets producers that have not written for `expirationMs`; returns how many. */
  expire(now: number, expirationMs: number): number {
    let expired = 0;
    for (const [id, entry] of this.byId) {
      if (now - entry.writtenAt >= expirationMs) {
        this.byId.delete(id);
        expired++;
      }
    }
    return expired;
  }

  encode(offset: number): Buffer {
    let size = HEADER_SIZE;
    for (const entry of this.byId.values()) size += PRODUCER_SIZE + entry.state.window.length * WINDOW_ENTRY_SIZE;
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
      pos = buf.writeUInt8(state.window.length, pos);
      for (const e of state.window) {
        pos = buf.writeInt32BE(e.firstSeq, pos);
        pos = buf.writeInt32BE(e.lastSeq, pos);
        pos = buf.writeBigInt64BE(BigInt(e.baseOffset), pos);
      }
    }
    buf.writeUInt32BE(crc32c(buf.subarray(4)), 0);
    return buf;
  }

  /** The snapshot in `bytes`, or undefined if it is damaged in any way; `loadedAt` stands in for version 1's missing writtenAt. */
  static decode(bytes: Buffer, loadedAt: number): { offset: number; states: ProducerStates } | undefined {
    if (bytes.length < HEADER_SIZE || crc32c(bytes.subarray(4)) !== bytes.readUInt32BE(0)) return undefined;
    const version = bytes.readUInt16BE(4);
    if (version !== 1 && version !== VERSION) return undefined;
    const offset = Number(bytes.readBigInt64BE(6));
    const count = bytes.readUInt32BE(14);
    const states = new ProducerStates();
    let pos = HEADER_SIZE;
    try {
      for (let i = 0; i < count; i++) {
        const id = bytes.readBigInt64BE(pos);
        const epoch = bytes.readInt16BE(pos + 8);
        const lastTimestamp = Number(bytes.readBigInt64BE(pos + 10));
        const writtenAt = version === 1 ? loadedAt : Number(bytes.readBigInt64BE(pos + 18));
        const size = version === 1 ? V1_PRODUCER_SIZE : PRODUCER_SIZE;
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
    } catch (err) {
      if (err instanceof RangeError) return undefined;
      throw err;
    }
    return pos === bytes.length ? { offset, states } : undefined;
  }
}
