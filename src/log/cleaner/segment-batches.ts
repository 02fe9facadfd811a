/**
 * Reading a segment's batches for the cleaner, which may read all of a large log: a chunk at a
 * time, or a small segment whole. It runs on the cleaner's own thread only, so its reads are
 * synchronous: with thousands of small segments, a round trip through libuv's thread pool per
 * open, read and close would cost more than the reads themselves, and the broker's thread goes
 * on meanwhile.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { BATCH_HEADER_SIZE, crcMatches, readBatchHeader, type BatchHeader } from '../../protocol/record-batch.js';

/** What one read takes, unless a batch is larger: bounds the cleaner's memory and the time between its turns. */
const CHUNK_BYTES = 1024 * 1024;

/** Return false to stop. `last`: the segment's last batch. */
export type SegmentBatchVisitor = (batch: Buffer, header: BatchHeader, last: boolean) => boolean | void;

/** A segment's bytes that do not hold together as batches: the cleaner leaves such a log alone. */
export class DamagedSegmentError extends Error {}

/** `length` bytes at `position` of the open file `fd`, or fewer where the file ends. */
function readAtSync(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buf, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled === length ? buf : buf.subarray(0, filled);
}

/**
 * Calls `visit` with each batch of the segment file at `path` (`size` bytes), in order, each
 * checked against its CRC (the cleaner gives what it keeps a new one, so it must not vouch for
 * damage). The file is read CHUNK_BYTES at a time, in large sequential reads.
 */
export function eachSegmentBatch(path: string, size: number, visit: SegmentBatchVisitor): void {
  const fd = openSync(path, 'r');
  try {
    let pos = 0;
    let want = CHUNK_BYTES;
    while (pos < size) {
      const chunk = readAtSync(fd, pos, Math.min(want, size - pos));
      const walked = walkBatches(path, chunk, pos, size, visit);
      if (walked === undefined) return;
      if (walked.at === 0 && walked.needs <= want) throw new DamagedSegmentError(`${path} ends inside a batch at position ${pos}`);
      want = Math.max(want, walked.needs);
      pos += walked.at;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Visits the whole batches of `chunk`, read at `pos` of a file of `size` bytes: where the walk
 * stopped (the start of a batch the chunk holds only part of) and how large that batch is;
 * undefined when `visit` stopped it.
 */
function walkBatches(path: string, chunk: Buffer, pos: number, size: number, visit: SegmentBatchVisitor): { at: number; needs: number } | undefined {
  let at = 0;
  while (at + BATCH_HEADER_SIZE <= chunk.length) {
    const header = readBatchHeader(chunk, at);
    if (header.size < BATCH_HEADER_SIZE || header.magic !== 2) throw new DamagedSegmentError(`${path}: no batch at position ${pos + at}`);
    if (at + header.size > chunk.length) {
      if (pos + at + header.size > size) throw new DamagedSegmentError(`${path}: the batch at position ${pos + at} runs past the file`);
      return { at, needs: header.size };
    }
    if (!crcMatches(chunk, at, header.size)) throw new DamagedSegmentError(`${path}: the batch at offset ${header.baseOffset} fails its CRC`);
    if (visit(chunk.subarray(at, at + header.size), header, pos + at + header.size === size) === false) return undefined;
    at += header.size;
  }
  return { at, needs: BATCH_HEADER_SIZE };
}
