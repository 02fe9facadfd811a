/** CRC32C (Castagnoli), as RecordBatch v2 uses it: native code from @node-rs/crc32. */
import { crc32c as nativeCrc32c } from '@node-rs/crc32';

/** The CRC of `data`; given the CRC of the bytes before it as `previous`, that of them all. */
export function crc32c(data: Uint8Array, previous = 0): number {
  return nativeCrc32c(data, previous) >>> 0;
}
