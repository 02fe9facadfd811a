/**
 * What a tool of Kafka's ecosystem uses to read the coordinators' internal topics, written here
 * from Kafka's schema JSON and Java's hash rather than taken from brook's code, so that the tests
 * reading `__consumer_offsets` and `__transaction_state` check brook's records independently.
 */

/** Java's String.hashCode, and Kafka's `Utils.abs(hash) % partitions` over it: the key's partition. */
export function kafkaPartitionFor(key: string, partitions: number): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return (h === -(2 ** 31) ? 0 : Math.abs(h)) % partitions;
}

/** A reader of the fields Kafka's coordinator record schemas use. */
export class SchemaReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}
  int8(): number {
    return this.buf.readInt8(this.pos++);
  }
  int16(): number {
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  int64(): bigint {
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  uvarint(): number {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = this.buf[this.pos++]!;
      v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
    }
  }
  bytes(n: number): Buffer {
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  /** A string: int16 length (version 0) or unsigned varint length + 1 (flexible). */
  string(flexible: boolean): string {
    const length = flexible ? this.uvarint() - 1 : this.int16();
    return this.bytes(length).toString('utf8');
  }
  /** An array's length, -1 for null. */
  arrayLength(flexible: boolean): number {
    return flexible ? this.uvarint() - 1 : this.int32();
  }
  /** Tagged fields: tag → bytes. */
  taggedFields(): Map<number, Buffer> {
    const fields = new Map<number, Buffer>();
    for (let n = this.uvarint(); n > 0; n--) {
      const tag = this.uvarint();
      fields.set(tag, this.bytes(this.uvarint()));
    }
    return fields;
  }
  get done(): boolean {
    return this.pos === this.buf.length;
  }
}
