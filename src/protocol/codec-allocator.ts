/**
 * Imported before the codec libraries are loaded (compression.ts imports it first). lz4-napi and
 * snappy carry their own allocator (mimalloc), which holds memory it freed for a while and gives it
 * back to the system only at its next call: after a burst of large decompressions the process
 * kept every megabyte of them resident until the next compressed batch came. Giving freed memory
 * back at once (MIMALLOC_PURGE_DELAY=0) brings the resident size back to its baseline. The
 * allocator reads its settings from the environment when its library is loaded, so this sets
 * them first; a value the operator set is kept.
 */
process.env['MIMALLOC_PURGE_DELAY'] ??= '0';
