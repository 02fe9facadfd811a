/**
 * The idempotence state of every producer of one partition, kept in step with the log, and
 * its snapshot format.
 *
 * Snapshot (`<offset>.snapshot`, the state after every batch below offset), big-endian:
 *   crc32c of the rest (u32) | version (u16) | offset (i64) | producer count (u32) |
 *   per producer: id (i64) | epoch (i16) | lastTimestamp (i64) | window length (u8) |
 *                 per window entry, oldest first: firstSeq (i32) | lastSeq (i32) | baseOffset (i64)
 */
import { commit, WINDOW_SIZE, type ProducerState, type WindowEntry } from '../idempotence/rules.js';
import { crc32c } from '../protocol/crc32c.js';
import type { BatchHeader } from '../protocol/record-batch.js';

export interface ProducerEntry {
  readonly state: ProducerState;
  /** maxTimestamp of the producer's newest batch: expiry counts from it, so replay restores it. */
  readonly lastTimestamp: number;
}

const VERSION = 1;
const HEADER_SIZE = 18;
const PRODUCER_SIZE = 19;
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
  apply(header: BatchHeader, baseOffset: number): void {
    if (header.producerId < 0n) return;
    const previous = this.byId.get(header.producerId)?.state;
    const batch = { epoch: header.producerEpoch, firstSeq: header.baseSequence, count: header.recordCount };
    this.byId.set(header.producerId, { state: commit(previous, batch, baseOffset), lastTimestamp: header.maxTimestamp });
  }

  /** Forgets producers that have not written for `expirationMs`; returns how many. */
  expire(now: number, expirationMs: number): number {
    let expired = 0;
    for (const [id, entry] of this.byId) {
      if (now - entry.lastTimestamp >= expirationMs) {
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
    for (const [id, { state, lastTimestamp }] of this.byId) {
      pos = buf.writeBigInt64BE(id, pos);
      pos = buf.writeInt16BE(state.epoch, pos);
      pos = buf.writeBigInt64BE(BigInt(lastTimestamp), pos);
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

  /** The snapshot in `bytes`, or undefined if it is damaged in any way. */
  static decode(bytes: Buffer): { offset: number; states: ProducerStates } | undefined {
    if (bytes.length < HEADER_SIZE || crc32c(bytes.subarray(4)) !== bytes.readUInt32BE(0)) return undefined;
    if (bytes.readUInt16BE(4) !== VERSION) return undefined;
    const offset = Number(bytes.readBigInt64BE(6));
    const count = bytes.readUInt32BE(14);
    const states = new ProducerStates();
    let pos = HEADER_SIZE;
    try {
      for (let i = 0; i < count; i++) {
        const id = bytes.readBigInt64BE(pos);
        const epoch = bytes.readInt16BE(pos + 8);
        const lastTimestamp = Number(bytes.readBigInt64BE(pos + 10));
        const length = bytes.readUInt8(pos + 18);
        pos += PRODUCER_SIZE;
        if (length > WINDOW_SIZE) return undefined;
        const window: WindowEntry[] = [];
        for (let w = 0; w < length; w++, pos += WINDOW_ENTRY_SIZE) {
          window.push({
            firstSeq: bytes.readInt32BE(pos),
            lastSeq: bytes.readInt32BE(pos + 4),
            baseOffset: Number(bytes.readBigInt64BE(pos + 8)),
          });
        }
        states.byId.set(id, { state: { epoch, window }, lastTimestamp });
      }
    } catch (err) {
      if (err instanceof RangeError) return undefined;
      throw err;
    }
    return pos === bytes.length ? { offset, states } : undefined;
  }
}
