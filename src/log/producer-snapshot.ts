/**
 * The producer snapshot format, and its encoding from a ProducerTable a slice at a time.
 *
 * Snapshot (`<offset>.snapshot`, the state after every batch below offset), big-endian:
 *   crc32c of the rest (u32) | version (u16) | offset (i64) | producer count (u32) |
 *   per producer: id (i64) | epoch (i16) | lastTimestamp (i64) | writtenAt (i64) | open transaction's first offset (i64, -1 for none) |
 *                 window length (u8) | per window entry, oldest first: firstSeq (i32) | lastSeq (i32) | baseOffset (i64)
 *   aborted transaction count (u32) | per aborted transaction: producer id (i64) | first offset (i64) | marker offset (i64)
 * Version 1 had no writtenAt: its producers count as written when the snapshot is loaded.
 * Versions 1 and 2 had no transactions. Producers are in no particular order.
 */
import { WINDOW_SIZE, type WindowEntry } from '../idempotence/rules.js';
import { crc32c } from '../protocol/crc32c.js';
import { writeSafeInt64 } from '../protocol/primitives/int64.js';
import { FREE_SLOT, type ProducerTable, type SlotWatcher } from './producer-table.js';

/** A transaction aborted on the partition: its producer's records from firstOffset up to the marker at lastOffset are to be dropped by read_committed consumers. */
export interface AbortedTxn {
  readonly producerId: bigint;
  readonly firstOffset: number;
  readonly lastOffset: number;
}

const VERSION = 3;
const HEADER_SIZE = 18;
/** Producer entries by version: version 2 added writtenAt, version 3 the open transaction's first offset. */
const PRODUCER_SIZES = [0, 19, 27, 35];
const WINDOW_ENTRY_SIZE = 16;
const ABORTED_SIZE = 24;

/**
 * The snapshot of `table` as it stood when this was made: slots are encoded in order by step(),
 * and any slot about to change before then is encoded first, as it still stands, so that later
 * appends never reach it. Producers added later take slots past the end or freed ones, which
 * were encoded (as free) when freed.
 */
export class SnapshotEncoding implements SlotWatcher {
  private readonly buf: Buffer;
  private readonly view: DataView;
  private readonly done: Uint8Array;
  private readonly end: number;
  private readonly abortedAt: number;
  private next = 0;
  private pos = HEADER_SIZE;
  /** CRC of the bytes from 4 up to crcAt. */
  private crc = 0;
  private crcAt = 4;

  constructor(
    private readonly table: ProducerTable,
    offset: number,
    aborted: readonly AbortedTxn[],
  ) {
    this.end = table.used;
    this.done = new Uint8Array(this.end);
    this.abortedAt = HEADER_SIZE + table.size * PRODUCER_SIZES[VERSION]! + table.windowEntries * WINDOW_ENTRY_SIZE;
    // Every byte is written before the snapshot is handed out.
    this.buf = Buffer.allocUnsafeSlow(this.abortedAt + 4 + aborted.length * ABORTED_SIZE);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
    this.buf.writeUInt16BE(VERSION, 4);
    writeSafeInt64(this.buf, offset, 6);
    this.buf.writeUInt32BE(table.size, 14);
    let pos = this.buf.writeUInt32BE(aborted.length, this.abortedAt);
    for (const a of aborted) {
      pos = this.buf.writeBigInt64BE(a.producerId, pos);
      pos = writeSafeInt64(this.buf, a.firstOffset, pos);
      pos = writeSafeInt64(this.buf, a.lastOffset, pos);
    }
  }

  beforeChange(slot: number): void {
    if (slot < this.end && this.done[slot] === 0) this.encode(slot);
  }

  /** Encodes up to `slots` more slots; true once every one is, and bytes() is ready. */
  step(slots: number): boolean {
    const stop = Math.min(this.end, this.next + slots);
    for (; this.next < stop; this.next++) if (this.done[this.next] === 0) this.encode(this.next);
    this.crc = crc32c(this.buf.subarray(this.crcAt, this.pos), this.crc);
    this.crcAt = this.pos;
    return this.next === this.end;
  }

  /** The whole snapshot, once step() has said it is complete. */
  bytes(): Buffer {
    if (this.pos !== this.abortedAt) throw new Error(`producer snapshot holds ${this.pos} bytes of producers, not the ${this.abortedAt} counted`);
    this.buf.writeUInt32BE(crc32c(this.buf.subarray(this.abortedAt), this.crc), 0);
    return this.buf;
  }

  private encode(slot: number): void {
    this.done[slot] = 1;
    const t = this.table;
    const length = t.lengths[slot]!;
    if (length === FREE_SLOT) return;
    const view = this.view;
    let pos = this.pos;
    view.setBigInt64(pos, t.ids[slot]!);
    view.setInt16(pos + 8, t.epochs[slot]!);
    writeSafeInt64(this.buf, t.lastTimestamps[slot]!, pos + 10);
    writeSafeInt64(this.buf, t.writtenAts[slot]!, pos + 18);
    writeSafeInt64(this.buf, t.txnStarts[slot]!, pos + 26);
    view.setUint8(pos + 34, length);
    pos += PRODUCER_SIZES[VERSION]!;
    for (let i = 0, at = slot * WINDOW_SIZE; i < length; i++, at++, pos += WINDOW_ENTRY_SIZE) {
      view.setInt32(pos, t.seqs[2 * at]!);
      view.setInt32(pos + 4, t.seqs[2 * at + 1]!);
      writeSafeInt64(this.buf, t.bases[at]!, pos + 8);
    }
    this.pos = pos;
  }
}

export interface DecodedSnapshot {
  readonly offset: number;
  /** Open transactions' producers and first offsets, in the order they began. */
  readonly open: [bigint, number][];
  readonly aborted: AbortedTxn[];
}

/**
 * Loads the snapshot in `bytes` into `table` (empty), or undefined if it is damaged in any way;
 * `loadedAt` stands in for version 1's missing writtenAt.
 */
export function decodeSnapshot(bytes: Buffer, loadedAt: number, table: ProducerTable): DecodedSnapshot | undefined {
  if (bytes.length < HEADER_SIZE || crc32c(bytes.subarray(4)) !== bytes.readUInt32BE(0)) return undefined;
  const version = bytes.readUInt16BE(4);
  if (version < 1 || version > VERSION) return undefined;
  const offset = Number(bytes.readBigInt64BE(6));
  const count = bytes.readUInt32BE(14);
  const open: [bigint, number][] = [];
  const aborted: AbortedTxn[] = [];
  let pos = HEADER_SIZE;
  try {
    for (let i = 0; i < count; i++) {
      const id = bytes.readBigInt64BE(pos);
      const epoch = bytes.readInt16BE(pos + 8);
      const lastTimestamp = Number(bytes.readBigInt64BE(pos + 10));
      const writtenAt = version === 1 ? loadedAt : Number(bytes.readBigInt64BE(pos + 18));
      const size = PRODUCER_SIZES[version]!;
      const txnStart = version >= 3 ? Number(bytes.readBigInt64BE(pos + 26)) : -1;
      const length = bytes.readUInt8(pos + size - 1);
      pos += size;
      if (length > WINDOW_SIZE || table.slotOf(id) !== undefined) return undefined;
      const window: WindowEntry[] = [];
      for (let w = 0; w < length; w++, pos += WINDOW_ENTRY_SIZE) {
        window.push({
          firstSeq: bytes.readInt32BE(pos),
          lastSeq: bytes.readInt32BE(pos + 4),
          baseOffset: Number(bytes.readBigInt64BE(pos + 8)),
        });
      }
      const slot = table.add(id);
      table.set(slot, { epoch, window, txnStart }, lastTimestamp, writtenAt);
      if (txnStart >= 0) open.push([id, txnStart]);
    }
    if (version >= 3) {
      for (let n = bytes.readUInt32BE(pos), i = 0; i < n; i++) {
        const at = pos + 4 + i * ABORTED_SIZE;
        aborted.push({
          producerId: bytes.readBigInt64BE(at),
          firstOffset: Number(bytes.readBigInt64BE(at + 8)),
          lastOffset: Number(bytes.readBigInt64BE(at + 16)),
        });
      }
      pos += 4 + aborted.length * ABORTED_SIZE;
    }
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
  if (pos !== bytes.length) return undefined;
  return { offset, open: open.sort((a, b) => a[1] - b[1]), aborted };
}
