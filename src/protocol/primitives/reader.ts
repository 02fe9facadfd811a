import { ProtocolError } from './errors.js';

/** UUIDs are lower-case canonical strings; this one is Kafka's "no id". */
export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** Reads the value of one known tag; returns false to have the field skipped instead. */
export type TagReader<C> = (r: Reader, tag: number, ctx: C, version: number) => boolean;

const EMPTY = Buffer.alloc(0);
const MAX_STRING_BYTES = 0x7fff;

function truncated(wanted: number, left: number): ProtocolError {
  return new ProtocolError(`truncated input: need ${wanted} bytes, ${left} left`);
}

/** Sequential big-endian reader over buf[offset, end). Throws only ProtocolError. */
export class Reader {
  readonly buf: Buffer;
  offset: number;
  readonly end: number;

  constructor(buf: Buffer, offset = 0, end = buf.length) {
    if (!(offset >= 0 && offset <= end && end <= buf.length)) {
      throw new ProtocolError(`bad reader bounds [${offset}, ${end}) over ${buf.length} bytes`);
    }
    this.buf = buf;
    this.offset = offset;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  /** Advances by n bytes, returning the old offset. */
  private take(n: number): number {
    const o = this.offset;
    if (n > this.end - o) throw truncated(n, this.end - o);
    this.offset = o + n;
    return o;
  }

  skip(n: number): void {
    this.take(n);
  }

  readInt8(): number {
    return this.buf.readInt8(this.take(1));
  }
  readInt16(): number {
    return this.buf.readInt16BE(this.take(2));
  }
  readUint16(): number {
    return this.buf.readUInt16BE(this.take(2));
  }
  readInt32(): number {
    return this.buf.readInt32BE(this.take(4));
  }
  readUint32(): number {
    return this.buf.readUInt32BE(this.take(4));
  }
  readInt64(): bigint {
    return this.buf.readBigInt64BE(this.take(8));
  }
  readFloat64(): number {
    return this.buf.readDoubleBE(this.take(8));
  }
  readBoolean(): boolean {
    return this.buf[this.take(1)] !== 0;
  }

  readUuid(): string {
    const o = this.take(16);
    const h = this.buf.toString('hex', o, o + 16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /** Unsigned LEB128 of at most 32 bits (5 bytes). */
  readUnsignedVarint(): number {
    const buf = this.buf;
    const end = this.end;
    let o = this.offset;
    let result = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (o >= end) throw truncated(1, 0);
      const b = buf[o++]!;
      // The fifth byte may only carry the top 4 bits of a 32-bit value.
      if (shift === 28 && b > 0x0f) throw new ProtocolError('varint longer than 32 bits');
      result |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.offset = o;
        return result >>> 0;
      }
    }
    throw new ProtocolError('varint longer than 32 bits');
  }

  /** Zigzag-encoded int32. */
  readVarint(): number {
    const u = this.readUnsignedVarint();
    return (u >>> 1) ^ -(u & 1);
  }

  /** Zigzag-encoded int64. */
  readVarlong(): bigint {
    const buf = this.buf;
    const end = this.end;
    let o = this.offset;
    // Up to 7 bytes (49 bits) stays exact in a double, which covers nearly all real values.
    let n = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      if (o >= end) throw truncated(1, 0);
      const b = buf[o++]!;
      n += (b & 0x7f) * mul;
      if (b < 0x80) {
        this.offset = o;
        return BigInt(n % 2 === 1 ? -(n + 1) / 2 : n / 2);
      }
      mul *= 128;
    }
    let big = BigInt(n);
    for (let shift = 49n; shift < 70n; shift += 7n) {
      if (o >= end) throw truncated(1, 0);
      const b = buf[o++]!;
      if (shift === 63n && b > 1) throw new ProtocolError('varlong longer than 64 bits');
      big |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        this.offset = o;
        return (big >> 1n) ^ -(big & 1n);
      }
    }
    throw new ProtocolError('varlong longer than 64 bits');
  }

  private utf8(len: number): string {
    if (len > MAX_STRING_BYTES) throw new ProtocolError(`string length ${len} exceeds ${MAX_STRING_BYTES}`);
    const o = this.take(len);
    return this.buf.toString('utf8', o, o + len);
  }

  readString(): string {
    const len = this.readInt16();
    if (len < 0) throw new ProtocolError(`non-nullable string has length ${len}`);
    return this.utf8(len);
  }
  readNullableString(): string | null {
    const len = this.readInt16();
    if (len === -1) return null;
    if (len < 0) throw new ProtocolError(`string has length ${len}`);
    return this.utf8(len);
  }
  readCompactString(): string {
    const n = this.readUnsignedVarint();
    if (n === 0) throw new ProtocolError('non-nullable compact string is null');
    return this.utf8(n - 1);
  }
  readCompactNullableString(): string | null {
    const n = this.readUnsignedVarint();
    return n === 0 ? null : this.utf8(n - 1);
  }

  /** Slices share memory with the input buffer. */
  private slice(len: number): Buffer {
    if (len === 0) return EMPTY;
    const o = this.take(len);
    return this.buf.subarray(o, o + len);
  }

  readBytes(): Buffer {
    const len = this.readInt32();
    if (len < 0) throw new ProtocolError(`non-nullable bytes have length ${len}`);
    return this.slice(len);
  }
  readNullableBytes(): Buffer | null {
    const len = this.readInt32();
    if (len === -1) return null;
    if (len < 0) throw new ProtocolError(`bytes have length ${len}`);
    return this.slice(len);
  }
  readCompactBytes(): Buffer {
    const n = this.readUnsignedVarint();
    if (n === 0) throw new ProtocolError('non-nullable compact bytes are null');
    return this.slice(n - 1);
  }
  readCompactNullableBytes(): Buffer | null {
    const n = this.readUnsignedVarint();
    return n === 0 ? null : this.slice(n - 1);
  }

  /** Element count, or -1 for a null array. Every element takes at least a byte, so longer counts are garbage. */
  readArrayLength(): number {
    return this.checkCount(this.readInt32());
  }
  readCompactArrayLength(): number {
    return this.checkCount(this.readUnsignedVarint() - 1);
  }
  private checkCount(n: number): number {
    if (n < -1) throw new ProtocolError(`array has length ${n}`);
    if (n > this.end - this.offset) {
      throw new ProtocolError(`array of ${n} elements but only ${this.end - this.offset} bytes left`);
    }
    return n;
  }

  /** Reads a tagged field section, handing each tag to onTag and skipping the ones it declines. */
  readTaggedFields<C>(ctx: C, version: number, onTag: TagReader<C>): void {
    const count = this.readUnsignedVarint();
    for (let i = 0; i < count; i++) {
      const tag = this.readUnsignedVarint();
      const size = this.readUnsignedVarint();
      const start = this.offset;
      if (size > this.end - start) throw truncated(size, this.end - start);
      if (onTag(this, tag, ctx, version)) {
        if (this.offset !== start + size) {
          throw new ProtocolError(`tagged field ${tag} declared ${size} bytes but held ${this.offset - start}`);
        }
      } else {
        this.offset = start + size;
      }
    }
  }

  skipTaggedFields(): void {
    const count = this.readUnsignedVarint();
    for (let i = 0; i < count; i++) {
      this.readUnsignedVarint();
      this.skip(this.readUnsignedVarint());
    }
  }
}
