/** Reading and writing stored batches in a segment file. */
import { writevSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { IncompleteWriteError } from '../files/io-error.js';
import { BATCH_HEADER_SIZE, crcMatches, isControl, markerOf, readBatchHeader, type BatchHeader, type Marker } from '../protocol/record-batch.js';

/** Where a read puts what it reads: memory of at least `size` bytes. */
export type ReadMemory = (size: number) => Buffer;

/** `length` bytes at `position`, or fewer where the file ends, in memory from `memory`. */
export async function readAt(handle: FileHandle, position: number, length: number, memory: ReadMemory = Buffer.allocUnsafe): Promise<Buffer> {
  const buf = memory(length).subarray(0, length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buf, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === length ? buf : buf.subarray(0, filled);
}

/**
 * One vectored write of all `buffers` at `position`, continued if the system wrote part of them.
 * Synchronous on purpose: a write to the page cache takes microseconds, while a round trip
 * through libuv's thread pool costs tens of microseconds of CPU and latency per call.
 */
export function writeAllAt(handle: FileHandle, buffers: Buffer[], position: number): number {
  let total = 0;
  for (const b of buffers) total += b.length;
  let done = writevSync(handle.fd, buffers, position);
  while (done < total) {
    let skip = done;
    const rest: Buffer[] = [];
    for (const b of buffers) {
      if (skip >= b.length) skip -= b.length;
      else {
        rest.push(skip > 0 ? b.subarray(skip) : b);
        skip = 0;
      }
    }
    const bytesWritten = writevSync(handle.fd, rest, position + done);
    if (bytesWritten === 0) throw new IncompleteWriteError(`write at ${position + done} made no progress`);
    done += bytesWritten;
  }
  return total;
}

export interface ScanRange {
  readonly from: number;
  /** Where the stored data ends (exclusive). */
  readonly to: number;
  /**
   * Check each batch's CRC too, as recovery must before trusting it. Without it only lengths
   * (and, given `nextOffset`, headers) are checked, for data recovery already vouched for.
   */
  readonly verify: boolean;
  /** The offset the first batch may start at, at the earliest: given, each batch's magic and base offset are checked as it is walked. */
  readonly nextOffset?: number;
  /** Bytes already read from `from` on, walked before the file is read again. */
  readonly read?: Buffer;
}

export interface ScanResult {
  /** Position after the last batch visited: where the good data ends. */
  readonly end: number;
  /** Offset the batch at `end` has, or would have. */
  readonly nextOffset: number | undefined;
  /** Why the walk stopped before `to`, if a batch did not hold together. */
  readonly problem?: string;
  /** Whether that batch is corrupt in itself (a length below a batch header, a CRC that does not match) rather than out of place. */
  readonly corrupt?: boolean;
}

/** Return false to stop before this batch. `marker` says what a control batch marks. */
export type BatchVisitor = (header: BatchHeader, position: number, marker?: Marker) => boolean | void;

/** Walks the batches in [from, to) in order, reading large chunks, and stops at the first bad one. */
export async function scanBatches(handle: FileHandle, range: ScanRange, visit: BatchVisitor): Promise<ScanResult> {
  // Headers alone need little read-ahead; verification reads every byte anyway.
  const chunkBytes = range.verify ? 1 << 20 : 64 << 10;
  let buf: Buffer = range.read ?? Buffer.alloc(0);
  let bufStart = range.from;
  let pos = range.from;
  let nextOffset = range.nextOffset;
  const holds = (n: number): boolean => pos - bufStart + n <= buf.length;
  const load = async (n: number): Promise<boolean> => {
    if (holds(n)) return true;
    buf = await readAt(handle, pos, Math.min(Math.max(n, chunkBytes), range.to - pos));
    bufStart = pos;
    return holds(n);
  };
  const stop = (problem: string, corrupt = false): ScanResult => ({ end: pos, nextOffset, problem, corrupt });

  while (pos < range.to) {
    if (range.to - pos < BATCH_HEADER_SIZE) return stop(`${range.to - pos} bytes at the end are too few for a batch header`);
    if (!(await load(BATCH_HEADER_SIZE))) return stop('the file ends before its expected size');
    const header = readBatchHeader(buf, pos - bufStart);
    if (header.size < BATCH_HEADER_SIZE) return stop(`batch length ${header.size - 12} is less than a batch header`, true);
    if (header.size > range.to - pos) return stop(`batch length ${header.size - 12} runs past the ${range.to - pos} bytes left`);
    if (nextOffset !== undefined) {
      const problem = headerProblem(header.magic, header.lastOffsetDelta, header.baseOffset, nextOffset);
      if (problem !== undefined) return stop(problem);
    }
    if (range.verify) {
      if (!(await load(header.size))) return stop('the file ends before its expected size');
      if (!crcMatches(buf, pos - bufStart, header.size)) return stop(`batch at offset ${header.baseOffset} fails its CRC`, true);
    }
    let marker: Marker | undefined;
    if (isControl(header.attributes)) {
      if (!(await load(header.size))) return stop('the file ends before its expected size');
      marker = markerOf(buf, pos - bufStart, header);
    }
    if (visit(header, pos, marker) === false) return { end: pos, nextOffset: header.baseOffset };
    pos += header.size;
    nextOffset = header.baseOffset + header.lastOffsetDelta + 1;
  }
  return { end: pos, nextOffset };
}

/**
 * What is wrong with the header of a batch found where offset `due` should start, if anything.
 * A later base offset is a gap compaction left, as in Kafka: offsets only have to grow.
 */
export function headerProblem(magic: number, lastOffsetDelta: number, baseOffset: number, due: number): string | undefined {
  if (magic !== 2) return `batch magic is ${magic}`;
  if (lastOffsetDelta < 0) return `batch lastOffsetDelta is ${lastOffsetDelta}`;
  if (baseOffset < due) return `batch base offset ${baseOffset} where ${due} was due`;
  return undefined;
}
