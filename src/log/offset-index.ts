/**
 * The sparse index of one segment, as stored in its `.index` file: about every indexIntervalBytes
 * of log, one 16-byte entry for the batch that starts there:
 *   relative offset (u32, batch base offset minus segment base) | position (u32) |
 *   largest batch maxTimestamp before that position in the segment (i64, -1 for none).
 * Offsets and positions grow, and so does the timestamp, which lets one binary search serve
 * lookups by offset and by timestamp. A lookup lands at most one interval before its batch.
 */
export const INDEX_ENTRY_SIZE = 16;

/** Where a scan starts: a batch boundary, with the largest timestamp of the batches before it. */
export interface IndexPoint {
  readonly relativeOffset: number;
  readonly position: number;
  readonly timestampBefore: number;
}

const SEGMENT_START: IndexPoint = { relativeOffset: 0, position: 0, timestampBefore: -1 };

export class OffsetIndex {
  private buf: Buffer;
  private count: number;

  private constructor(buf: Buffer, count: number) {
    this.buf = buf;
    this.count = count;
  }

  static empty(): OffsetIndex {
    return new OffsetIndex(Buffer.alloc(0), 0);
  }

  /**
   * The index stored in `bytes`, cut at the first entry that does not follow its predecessor or
   * points past `logSize`: a torn or stale tail only makes lookups scan further.
   */
  static fromBytes(bytes: Buffer, logSize: number): OffsetIndex {
    const index = new OffsetIndex(bytes, 0);
    const stored = Math.floor(bytes.length / INDEX_ENTRY_SIZE);
    let previous = SEGMENT_START;
    while (index.count < stored) {
      const entry = index.entry(index.count);
      const follows = entry.position > previous.position && entry.relativeOffset > previous.relativeOffset && entry.timestampBefore >= previous.timestampBefore;
      if (!follows || entry.position >= logSize) break;
      previous = entry;
      index.count++;
    }
    return index;
  }

  get entries(): number {
    return this.count;
  }

  /** The newest entry, or the segment start. */
  get last(): IndexPoint {
    return this.count === 0 ? SEGMENT_START : this.entry(this.count - 1);
  }

  append(relativeOffset: number, position: number, timestampBefore: number): void {
    if ((this.count + 1) * INDEX_ENTRY_SIZE > this.buf.length) {
      const grown = Buffer.alloc(Math.max(64 * INDEX_ENTRY_SIZE, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.count * INDEX_ENTRY_SIZE);
      this.buf = grown;
    }
    const at = this.count * INDEX_ENTRY_SIZE;
    this.buf.writeUInt32BE(relativeOffset, at);
    this.buf.writeUInt32BE(position, at + 4);
    this.buf.writeBigInt64BE(BigInt(timestampBefore), at + 8);
    this.count++;
  }

  /** Drops the entries from the `entries`th on. */
  truncate(entries: number): void {
    this.count = Math.min(this.count, entries);
  }

  /** Stored bytes of entries [from, to), for writing to the file; a view, not a copy. */
  bytes(from: number, to: number): Buffer {
    return this.buf.subarray(from * INDEX_ENTRY_SIZE, to * INDEX_ENTRY_SIZE);
  }

  /** Scan start for the batch holding `relativeOffset`: the last entry at or below it. */
  floorOffset(relativeOffset: number): IndexPoint {
    return this.floor((e) => this.buf.readUInt32BE(e) <= relativeOffset);
  }

  /** Scan start for the first batch with maxTimestamp >= `timestamp`: every batch before it is older. */
  floorTimestamp(timestamp: number): IndexPoint {
    return this.floor((e) => Number(this.buf.readBigInt64BE(e + 8)) < timestamp);
  }

  /** The last entry satisfying `before`, a predicate that holds for a prefix of the entries. */
  private floor(before: (at: number) => boolean): IndexPoint {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(mid * INDEX_ENTRY_SIZE)) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? SEGMENT_START : this.entry(lo - 1);
  }

  private entry(i: number): IndexPoint {
    const at = i * INDEX_ENTRY_SIZE;
    return {
      relativeOffset: this.buf.readUInt32BE(at),
      position: this.buf.readUInt32BE(at + 4),
      timestampBefore: Number(this.buf.readBigInt64BE(at + 8)),
    };
  }
}
