/** CRC32C (Castagnoli), as RecordBatch v2 uses it: native code from @node-rs/crc32. */
import { crc32c as nativeCrc32c } from '@node-rs/crc32';

export function crc32c(data: Uint8Array): number {
  return nativeCrc32c(data) >>> 0;
}
