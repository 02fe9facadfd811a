import { ProtocolError } from './errors.js';
import { writeSafeInt64 } from './int64.js';

const MAX_STRING_BYTES = 0x7fff;
const EMPTY = Buffer.alloc(0);

/**
 * Growable big-endian writer. finish() hands over the bytes and leaves the writer empty.
 * A gathering writer (`gatherFrom` set) does not copy byte fields of at least that many bytes:
 * it keeps a reference to them between pieces of its own bytes, and finishPieces() hands over
 * the pieces in order, for one vectored write (a Fetch response's records, as the log read them).
 */
export class Writer {
  private buf: Buffer;
  private pos = 0;
  private readonly initialCapacity: number;
  /** Where the bytes not yet in `pieces` start in `buf`. */
  private segmentStart = 0;
  private pieces: Buffer[] = [];
  /** Which pieces are referenced byte fields (never written into). */
  private referenced: boolean[] = [];
  private piecesBytes = 0;
  /** Sized sections measure positions in `buf`, so nothing is gathered while one is open. */
  private openSized = 0;

  constructor(
    initialCapacity = 1024,
    private readonly gatherFrom = Infinity,
  ) {
    this.initialCapacity = Math.max(16, initialCapacity);
    this.buf = Buffer.allocUnsafe(this.initialCapacity);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.piecesBytes + this.pos - this.segmentStart;
  }

  private ensure(n: number): void {
    if (this.pos + n > this.buf.length) this.grow(n);
  }

  private grow(n: number): void {
    let cap = Math.max(this.buf.length * 2, this.initialCapacity);
    while (cap < this.pos + n) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Returns the written bytes (no copy) and detaches them, so later writes cannot clobber them. */
  finish(): Buffer {
    if (this.pieces.length > 0) throw new ProtocolError('a writer that gathered byte fields must be finished with finishPieces()');
    const out = this.buf.subarray(0, this.pos);
    this.buf = EMPTY;
    this.pos = 0;
    return out;
  }

  /** The written bytes as one buffer, or, if byte fields were gathered, as the pieces in order. */
  finishPieces(): Buffer | Buffer[] {
    if (this.pieces.length === 0) return this.finish();
    const pieces = this.pieces;
    if (this.pos > this.segmentStart) pieces.push(this.buf.subarray(this.segmentStart, this.pos));
    this.pieces = [];
    this.referenced = [];
    this.piecesBytes = 0;
    this.buf = EMPTY;
    this.pos = this.segmentStart = 0;
    return pieces;
  }

  writeInt8(v: number): void {
    this.ensure(1);
    this.pos = this.buf.writeInt8(v, this.pos);
  }
  writeInt16(v: number): void {
    this.ensure(2);
    this.pos = this.buf.writeInt16BE(v, this.pos);
  }
  writeUint16(v: number): void {
    this.ensure(2);
    this.pos = this.buf.writeUInt16BE(v, this.pos);
  }
  writeInt32(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeInt32BE(v, this.pos);
  }
  writeUint32(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeUInt32BE(v, this.pos);
  }
  writeInt64(v: bigint): void {
    this.ensure(8);
    const n = Number(v);
    if (!Number.isSafeInteger(n)) {
      this.pos = this.buf.writeBigInt64BE(v, this.pos);
      return;
    }
    this.pos = writeSafeInt64(this.buf, n, this.pos);
  }
  writeFloat64(v: number): void {
    this.ensure(8);
    this.pos = this.buf.writeDoubleBE(v, this.pos);
  }
  writeBoolean(v: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = v ? 1 : 0;
  }

  /** Overwrites an int32 already written among the writer's own bytes, e.g. a size prefix. */
  writeInt32At(offset: number, v: number): void {
    if (offset >= this.piecesBytes) {
      const at = this.segmentStart + offset - this.piecesBytes;
      if (at + 4 > this.pos) throw new ProtocolError(`writeInt32At(${offset}) outside written bytes`);
      this.buf.writeInt32BE(v, at);
      return;
    }
    let start = 0;
    for (const [i, piece] of this.pieces.entries()) {
      if (offset < start + piece.length) {
        if (offset < 0 || this.referenced[i] || offset + 4 > start + piece.length) {
          throw new ProtocolError(`writeInt32At(${offset}) is not within the writer's own bytes`);
        }
        piece.writeInt32BE(v, offset - start);
        return;
      }
      start += piece.length;
    }
  }

  writeUuid(v: string): void {
    if (v.length !== 36 || v[8] !== '-' || v[13] !== '-' || v[18] !== '-' || v[23] !== '-') {
      throw new ProtocolError(`not a canonical uuid: ${JSON.stringify(v)}`);
    }
    this.ensure(16);
    const hex = v.slice(0, 8) + v.slice(9, 13) + v.slice(14, 18) + v.slice(19, 23) + v.slice(24);
    // Buffer#write stops at the first non-hex pair, so a short count means a bad uuid.
    if (this.buf.write(hex, this.pos, 16, 'hex') !== 16) throw new ProtocolError(`not a canonical uuid: ${JSON.stringify(v)}`);
    this.pos += 16;
  }

  writeUnsignedVarint(v: number): void {
    if (!(v >= 0 && v <= 0xffffffff) || v % 1 !== 0) throw new ProtocolError(`unsigned varint out of range: ${v}`);
    this.ensure(5);
    const buf = this.buf;
    let o = this.pos;
    while (v >= 0x80) {
      buf[o++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[o++] = v;
    this.pos = o;
  }

  /** Zigzag-encoded int32. */
  writeVarint(v: number): void {
    this.writeUnsignedVarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  /** Zigzag-encoded int64. */
  writeVarlong(v: bigint): void {
    this.ensure(10);
    const buf = this.buf;
    let o = this.pos;
    if (v >= -0x1000000000000n && v < 0x1000000000000n) {
      // Small values: zigzag in double arithmetic (exact below 2^53) avoids bigint allocations.
      const n = Number(v);
      let u = n >= 0 ? n * 2 : -n * 2 - 1;
      while (u >= 0x80) {
        buf[o++] = (u % 0x80) | 0x80;
        u = Math.floor(u / 0x80);
      }
      buf[o++] = u;
    } else {
      let u = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
      while (u >= 0x80n) {
        buf[o++] = Number(u & 0x7fn) | 0x80;
        u >>= 7n;
      }
      buf[o++] = Number(u);
    }
    this.pos = o;
  }

  /** Writes the UTF-8 of s after a prefix of prefixLen bytes and returns its byte length. */
  private utf8After(s: string, prefixLen: number): number {
    if (s.length === 0) return 0;
    const n = this.buf.write(s, this.pos + prefixLen, 'utf8');
    if (n > MAX_STRING_BYTES) throw new ProtocolError(`string of ${n} bytes exceeds ${MAX_STRING_BYTES}`);
    return n;
  }

  writeString(s: string): void {
    // A UTF-16 unit never needs more than 3 UTF-8 bytes, so writing before measuring is safe.
    this.ensure(2 + s.length * 3);
    const n = this.utf8After(s, 2);
    this.buf.writeInt16BE(n, this.pos);
    this.pos += 2 + n;
  }
  writeNullableString(s: string | null): void {
    if (s === null) this.writeInt16(-1);
    else this.writeString(s);
  }
  writeCompactString(s: string): void {
    if (s.length * 3 < 0x7f) {
      // The length prefix surely fits one varint byte.
      this.ensure(1 + s.length * 3);
      const n = this.utf8After(s, 1);
      this.buf[this.pos] = n + 1;
      this.pos += 1 + n;
      return;
    }
    const n = Buffer.byteLength(s, 'utf8');
    if (n > MAX_STRING_BYTES) throw new ProtocolError(`string of ${n} bytes exceeds ${MAX_STRING_BYTES}`);
    this.writeUnsignedVarint(n + 1);
    this.ensure(n);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }
  writeCompactNullableString(s: string | null): void {
    if (s === null) this.writeUnsignedVarint(0);
    else this.writeCompactString(s);
  }

  /** Raw bytes, no length prefix. */
  writeBuffer(b: Uint8Array): void {
    if (b.length >= this.gatherFrom && this.openSized === 0) {
      this.gather(Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length));
      return;
    }
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  private gather(b: Buffer): void {
    if (this.pos > this.segmentStart) {
      this.pieces.push(this.buf.subarray(this.segmentStart, this.pos));
      this.referenced.push(false);
      this.piecesBytes += this.pos - this.segmentStart;
      this.segmentStart = this.pos;
    }
    this.pieces.push(b);
    this.referenced.push(true);
    this.piecesBytes += b.length;
  }

  writeBytes(b: Uint8Array): void {
    this.writeInt32(b.length);
    this.writeBuffer(b);
  }
  writeNullableBytes(b: Uint8Array | null): void {
    if (b === null) this.writeInt32(-1);
    else this.writeBytes(b);
  }
  writeCompactBytes(b: Uint8Array): void {
    this.writeUnsignedVarint(b.length + 1);
    this.writeBuffer(b);
  }
  writeCompactNullableBytes(b: Uint8Array | null): void {
    if (b === null) this.writeUnsignedVarint(0);
    else this.writeCompactBytes(b);
  }

  /** n is the element count, or -1 for a null array. */
  writeArrayLength(n: number): void {
    this.writeInt32(n);
  }
  writeCompactArrayLength(n: number): void {
    this.writeUnsignedVarint(n + 1);
  }

  writeEmptyTaggedFields(): void {
    this.ensure(1);
    this.buf[this.pos++] = 0;
  }

  /**
   * Starts a section prefixed by its unsigned-varint byte size (a tagged field's value).
   * One prefix byte is reserved; endSized() only moves the body when the size needs more.
   */
  beginSized(): number {
    this.ensure(1);
    this.openSized++;
    return this.pos++;
  }

  endSized(start: number): void {
    this.openSized--;
    const size = this.pos - start - 1;
    if (size < 0x80) {
      this.buf[start] = size;
      return;
    }
    let extra = 0;
    for (let s = size >>> 7; s > 0; s >>>= 7) extra++;
    this.ensure(extra);
    this.buf.copy(this.buf, start + 1 + extra, start + 1, this.pos);
    this.pos = start;
    this.writeUnsignedVarint(size);
    this.pos += size;
  }
}
