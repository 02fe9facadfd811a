/** Reading a segment's batches a chunk at a time, for the cleaner, which may read all of a large log. */
import { open } from 'node:fs/promises';
import { BATCH_HEADER_SIZE, crcMatches, readBatchHeader, type BatchHeader } from '../../protocol/record-batch.js';
import { readAt } from '../batch-file.js';

/** What one read takes, unless a batch is larger: bounds the cleaner's memory and the time between its turns. */
const CHUNK_BYTES = 1024 * 1024;

/** Return false to stop. `last`: the segment's last batch. */
export type SegmentBatchVisitor = (batch: Buffer, header: BatchHeader, last: boolean) => boolean | void | Promise<boolean | void>;

/** A segment's bytes that do not hold together as batches: the cleaner leaves such a log alone. */
export class DamagedSegmentError extends Error {}

/**
 * Calls `visit` with each batch of the segment file at `path` (`size` bytes), in order, each
 * checked against its CRC (the cleaner gives what it keeps a new one, so it must not vouch for
 * damage). The file is read CHUNK_BYTES at a time, in large sequential reads (on the cleaner's
 * own thread, so that the broker's goes on meanwhile).
 */
export async function eachSegmentBatch(path: string, size: number, visit: SegmentBatchVisitor): Promise<void> {
  const file = await open(path, 'r');
  try {
    let pos = 0;
    let want = CHUNK_BYTES;
    while (pos < size) {
      const chunk = await readAt(file, pos, Math.min(want, size - pos));
      let at = 0;
      let grew = false;
      while (at + BATCH_HEADER_SIZE <= chunk.length) {
        const header = readBatchHeader(chunk, at);
        if (header.size < BATCH_HEADER_SIZE || header.magic !== 2) throw new DamagedSegmentError(`${path}: no batch at position ${pos + at}`);
        if (at + header.size > chunk.length) {
          if (pos + at + header.size > size) throw new DamagedSegmentError(`${path}: the batch at position ${pos + at} runs past the file`);
          grew = header.size > want;
          want = Math.max(want, header.size);
          break;
        }
        if (!crcMatches(chunk, at, header.size)) throw new DamagedSegmentError(`${path}: the batch at offset ${header.baseOffset} fails its CRC`);
        const last = pos + at + header.size === size;
        if ((await visit(chunk.subarray(at, at + header.size), header, last)) === false) return;
        at += header.size;
      }
      if (at === 0 && !grew) throw new DamagedSegmentError(`${path} ends inside a batch at position ${pos}`);
      pos += at;
    }
  } finally {
    await file.close();
  }
}
