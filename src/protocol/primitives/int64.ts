/**
 * int64 fields holding safe integers (offsets, times) as two 32-bit halves: the BigInt a Buffer
 * reads or writes them through costs an allocation and BigInt arithmetic per field, on the
 * produce and fetch paths.
 */

const TWO_32 = 0x1_0000_0000;

/** The int64 at `pos` as the nearest number: exact for safe integers. */
export function readInt64AsNumber(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos) * TWO_32 + buf.readUInt32BE(pos + 4);
}

/** Writes the safe integer `n` as an int64 at `pos`; returns the position after it. */
export function writeSafeInt64(buf: Buffer, n: number, pos: number): number {
  const high = Math.floor(n / TWO_32);
  buf.writeInt32BE(high, pos);
  return buf.writeUInt32BE(n - high * TWO_32, pos + 4);
}
