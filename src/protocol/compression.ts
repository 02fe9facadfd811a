/**
 * Opens the records of a compressed RecordBatch, each codec framed as Kafka producers frame it (`GzipCompression`, `SnappyCompression`, `Lz4Compression`, `ZstdCompression`).
 * Every codec's framing states or bounds what each block decompresses to; that bound is checked
 * against `limit` before anything is decompressed, so a small hostile payload cannot make the
 * broker allocate more than `limit` bytes. All of it is synchronous; given `now`, a bound for what
 * its caller decompresses on its own thread, a payload that may take more is not decompressed
 * (LargePayload), and the caller opens it on another thread.
 */
// First: the codecs' allocator reads its settings when they are loaded.
import './codec-allocator.js';
import { gunzipSync } from 'node:zlib';
import { Decoder as ZstdDecoder } from '@toondepauw/node-zstd';
import { decompressFrameSync } from 'lz4-napi';
import { uncompressSync } from 'snappy';

/**
 * What the codecs take while they decompress, per byte they give: measured at most 2.4 (LZ4),
 * 2.0 (gzip), 1.8 (zstd) and 1.7 (snappy), as each grows its output and then copies it once.
 */
export const DECOMPRESSION_WORKING_FACTOR = 2.5;

/** The payload is not a well-formed stream of its codec. */
export class CorruptPayload extends Error {}

/** The payload would decompress to more than the limit. */
export class PayloadTooLarge extends Error {}

/** The payload may decompress to more than the caller's `now`: it is to be opened elsewhere, with no bound but the limit. */
export class LargePayload extends Error {
  constructor(
    /** The most it may decompress to, as its framing bounds it: at most the limit. */
    readonly bound: number,
  ) {
    super(`payload may decompress to ${bound} bytes`);
  }
}

function tooLarge(codec: string, limit: number): PayloadTooLarge {
  return new PayloadTooLarge(`${codec} payload may decompress to more than the ${limit} bytes allowed`);
}

/** The codec libraries' own errors say what is wrong with the stream; they become CorruptPayload. */
function decoded(codec: string, decode: () => Buffer): Buffer {
  try {
    return decode();
  } catch (err) {
    throw new CorruptPayload(`${codec} payload does not decompress: ${(err as Error).message}`);
  }
}

/**
 * gzip's framing bounds nothing; its trailer claims a size (modulo 2^32), which a payload claiming
 * more than `now` is taken at. One claiming less is inflated, but not past `now`.
 */
export function gunzip(payload: Buffer, limit: number, now = Infinity): Buffer {
  // The trailer may lie: only the limit bounds what inflates.
  if (limit > now && payload.length >= 4 && payload.readUInt32LE(payload.length - 4) > now) throw new LargePayload(limit);
  const cap = Math.min(limit, now);
  try {
    return gunzipSync(payload, { maxOutputLength: cap });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw new CorruptPayload(`gzip payload does not decompress: ${(err as Error).message}`);
    throw cap < limit ? new LargePayload(limit) : tooLarge('gzip', limit);
  }
}

/** snappy-java's stream header: 0x82 'SNAPPY' 0x00, then a version and a compatible version (int32 each). */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_SIZE = 16;

/**
 * Raw snappy, or snappy-java's framing of it, which Java producers send; as in snappy-java, the
 * header decides which.
 */
export function unsnappy(payload: Buffer, limit: number, now = Infinity): Buffer {
  const xerial = payload.length >= XERIAL_HEADER_SIZE && payload.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC);
  const blocks = xerial ? xerialBlocks(payload) : [payload];
  // Each raw block starts with its decompressed length, which the decoder allocates at once.
  const total = blocks.reduce((sum, block) => sum + snappyLength(block), 0);
  if (total > limit) throw tooLarge('snappy', limit);
  if (total > now) throw new LargePayload(total);
  return Buffer.concat(blocks.map((block) => decoded('snappy', () => uncompressSync(block, { asBuffer: true }) as Buffer)));
}

/** The raw snappy blocks of a snappy-java stream: [int32 length][block] after the header. */
function xerialBlocks(payload: Buffer): Buffer[] {
  const blocks: Buffer[] = [];
  for (let pos = XERIAL_HEADER_SIZE; pos < payload.length;) {
    if (pos + 4 > payload.length) throw new CorruptPayload('a snappy-java chunk length runs past the payload');
    const length = payload.readUInt32BE(pos);
    pos += 4;
    if (length > payload.length - pos) throw new CorruptPayload('a snappy-java chunk runs past the payload');
    blocks.push(payload.subarray(pos, pos + length));
    pos += length;
  }
  return blocks;
}

/** A raw snappy block's preamble: its decompressed length, a varint of at most 32 bits. */
function snappyLength(block: Buffer): number {
  let length = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    length += (block[i]! & 0x7f) * 2 ** (7 * i);
    if (block[i]! < 0x80) return length;
  }
  throw new CorruptPayload('a snappy block has no valid length preamble');
}

const LZ4_MAGIC = 0x184d2204;
/** Block maximum sizes by the frame's block size id (4 to 7). */
const LZ4_BLOCK_MAX = [0, 0, 0, 0, 64 << 10, 256 << 10, 1 << 20, 4 << 20];

/**
 * One LZ4 frame, nothing after it. Its descriptor must be one that Kafka's Java client reads
 * (KafkaLZ4BlockInputStream): version 01, independent blocks, no dictionary, reserved bits 0.
 */
export function unlz4(payload: Buffer, limit: number, now = Infinity): Buffer {
  if (payload.length < 7 || payload.readUInt32LE(0) !== LZ4_MAGIC) throw new CorruptPayload('payload is not an LZ4 frame');
  const flags = payload[4]!;
  const descriptor = payload[5]!;
  if ((flags & 0xe3) !== 0x60 || (descriptor & 0x8f) !== 0 || descriptor >> 4 < 4) {
    throw new CorruptPayload(`LZ4 frame descriptor ${flags.toString(16)} ${descriptor.toString(16)} is not one Kafka reads`);
  }
  const blockChecksums = (flags & 0x10) !== 0;
  const hasContentSize = (flags & 0x08) !== 0;
  const contentChecksum = (flags & 0x04) !== 0;
  const blockMax = LZ4_BLOCK_MAX[descriptor >> 4]!;
  let pos = 6;
  let contentSize = 0;
  if (hasContentSize) {
    if (payload.length < 15) throw new CorruptPayload('LZ4 frame header runs past the payload');
    contentSize = Number(payload.readBigUInt64LE(pos));
    pos += 8;
  }
  pos++; // the header checksum, which the decoder verifies
  let bound = 0;
  for (;;) {
    if (pos + 4 > payload.length) throw new CorruptPayload('LZ4 frame ends before its end mark');
    const word = payload.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break;
    const size = word & 0x7fffffff;
    const stored = size + (blockChecksums ? 4 : 0);
    if (size > blockMax || stored > payload.length - pos) throw new CorruptPayload(`an LZ4 block of ${size} bytes does not fit its frame`);
    // The high bit marks a block stored uncompressed. A compressed block's every input byte yields
    // at most 255 output bytes (a match length byte), so small blocks are bounded below blockMax.
    bound += word >>> 31 ? size : Math.min(blockMax, size * 255);
    pos += stored;
  }
  if (pos + (contentChecksum ? 4 : 0) !== payload.length) throw new CorruptPayload('the LZ4 frame does not end where the payload does');
  if (contentSize > bound) throw new CorruptPayload(`LZ4 frame claims ${contentSize} bytes, more than its blocks hold`);
  if (bound > limit) throw tooLarge('LZ4', limit);
  if (bound > now) throw new LargePayload(bound);
  return decoded('LZ4', () => decompressFrameSync(payload));
}

const ZSTD_MAGIC = 0xfd2fb528;
/** Skippable frames have magics 0x184D2A50 to 0x184D2A5F. */
const ZSTD_SKIPPABLE = 0x184d2a50;
/** No zstd block decompresses to more (RFC 8878: Block_Maximum_Size). */
const ZSTD_BLOCK_MAX = 128 << 10;
const zstd = new ZstdDecoder();

/** zstd frames (and skippable frames) back to back, filling the payload, as zstd itself reads them. */
export function unzstd(payload: Buffer, limit: number, now = Infinity): Buffer {
  if (payload.length === 0) throw new CorruptPayload('zstd payload is empty');
  let bound = 0;
  for (let pos = 0; pos < payload.length;) {
    if (pos + 8 > payload.length) throw new CorruptPayload('a zstd frame header runs past the payload');
    const magic = payload.readUInt32LE(pos);
    if ((magic & 0xfffffff0) >>> 0 === ZSTD_SKIPPABLE) {
      pos += 8 + payload.readUInt32LE(pos + 4);
      if (pos > payload.length) throw new CorruptPayload('a zstd skippable frame runs past the payload');
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw new CorruptPayload('payload is not a zstd frame');
    const frame = zstdFrame(payload, pos + 4);
    bound += frame.bound;
    pos = frame.end;
  }
  if (bound > limit) throw tooLarge('zstd', limit);
  if (bound > now) throw new LargePayload(bound);
  return decoded('zstd', () => zstd.decodeSync(payload));
}

/** Walks one zstd frame from its header descriptor: where it ends, and the most it decompresses to. */
function zstdFrame(payload: Buffer, start: number): { end: number; bound: number } {
  const descriptor = payload[start]!;
  if (descriptor & 0x08) throw new CorruptPayload('a zstd frame header sets its reserved bit');
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const checksum = (descriptor >> 2) & 1;
  const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 3]!;
  const contentSizeBytes = sizeFlag === 0 ? singleSegment : 1 << sizeFlag;
  let pos = start + 1 + (singleSegment ? 0 : 1) + dictionaryIdBytes;
  if (pos + contentSizeBytes > payload.length) throw new CorruptPayload('a zstd frame header runs past the payload');
  let contentSize = 0;
  for (let i = contentSizeBytes - 1; i >= 0; i--) contentSize = contentSize * 256 + payload[pos + i]!;
  if (contentSizeBytes === 2) contentSize += 256;
  pos += contentSizeBytes;
  let bound = 0;
  for (let last = 0; !last;) {
    if (pos + 3 > payload.length) throw new CorruptPayload('a zstd frame ends before its last block');
    const header = payload.readUIntLE(pos, 3);
    pos += 3;
    last = header & 1;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    // Raw blocks hold `size` bytes; an RLE block repeats its one byte `size` times.
    const stored = type === 1 ? 1 : size;
    if (type === 3 || size > ZSTD_BLOCK_MAX || stored > payload.length - pos) throw new CorruptPayload('a zstd block does not fit its frame');
    bound += type === 2 ? ZSTD_BLOCK_MAX : size;
    pos += stored;
  }
  pos += checksum * 4;
  if (pos > payload.length) throw new CorruptPayload('a zstd frame checksum runs past the payload');
  if (contentSizeBytes > 0 && contentSize > bound) throw new CorruptPayload(`a zstd frame claims ${contentSize} bytes, more than its blocks hold`);
  return { end: pos, bound };
}
