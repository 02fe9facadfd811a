/**
 * The cleaner's work on segment files, which runs on its own thread (clean-worker.ts): putting a
 * segment's keys in the offset map, and writing the cleaned copy of a group of segments beside them.
 */
import { join } from 'node:path';
import {
  batchOfRecords,
  batchTime,
  isControl,
  isTransactional,
  readBatchHeader,
  storedRecords,
  type BatchHeader,
  type StoredRecords,
} from '../../protocol/record-batch.js';
import { OffsetIndex } from '../offset-index.js';
import { offsetFileName, Segment } from '../segment.js';
import { batchFate, type BatchToJudge, type CleaningRules, type RecordToJudge } from './clean-rule.js';
import type { OffsetMap } from './offset-map.js';
import { eachSegmentBatch } from './segment-batches.js';
import { CLEANED, removeFile } from './swap-files.js';

/** What the cleaned copy gathers before each write. */
const WRITE_BYTES = 1024 * 1024;
/** The most one batch's records may take decompressed, for the cleaner to judge them. */
const MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024;

/** A segment file, as the cleaner's thread is told of it. */
export interface SegmentFile {
  readonly dir: string;
  readonly baseOffset: number;
  readonly size: number;
}

/** A segment's cleaned copy, written beside it: what the segment that takes its place needs. */
export interface CleanedCopy {
  readonly size: number;
  readonly largestTimestamp: number | undefined;
  readonly firstTimestamp: number | undefined;
}

function segmentPath(segment: SegmentFile): string {
  return join(segment.dir, offsetFileName(segment.baseOffset, '.log'));
}

/** Whether a batch is one the rule cannot judge yet: a transaction's, or a control batch. */
function untouchable(header: BatchHeader): boolean {
  return isControl(header.attributes) || isTransactional(header.attributes);
}

/** One batch as the map's pass read it: its records decompressed once, for the cleaning pass too; none for a batch the rule cannot judge yet. */
interface ReadBatch {
  readonly batch: Buffer;
  readonly header: BatchHeader;
  readonly stored: StoredRecords | undefined;
}

/**
 * Segments the map's pass read, kept for the cleaning pass up to a number of bytes (their own,
 * and their records' decompressed), so that each is read, checked and decompressed once. The
 * cleaning pass starts at the oldest, as the map's does, and takes each as it cleans it.
 */
export class SegmentsRead {
  private readonly kept = new Map<string, ReadBatch[]>();
  private bytes = 0;

  constructor(private readonly capacityBytes: number) {}

  /** The batches of the segment, if kept; forgotten once taken. */
  take(segment: SegmentFile): ReadBatch[] | undefined {
    const path = segmentPath(segment);
    const batches = this.kept.get(path);
    if (batches === undefined) return undefined;
    this.kept.delete(path);
    this.bytes -= keptBytes(batches);
    return batches;
  }

  /**
   * Whether a segment of `size` bytes may still be kept: a small one (a large one is read in
   * large reads anyway, and its records' spans would cost more than reading it again).
   */
  hasRoomFor(size: number): boolean {
    return size <= this.capacityBytes / KEPT_SEGMENT_SHARE && this.bytes + size <= this.capacityBytes;
  }

  /** Keeps the segment's batches, unless their records take more room than is left. */
  keep(segment: SegmentFile, batches: ReadBatch[]): void {
    const bytes = keptBytes(batches);
    if (!this.hasRoomFor(bytes)) return;
    this.kept.set(segmentPath(segment), batches);
    this.bytes += bytes;
  }

  clear(): void {
    this.kept.clear();
    this.bytes = 0;
  }
}

/** The largest segment kept is this share of what all kept may take. */
const KEPT_SEGMENT_SHARE = 64;

function keptBytes(batches: readonly ReadBatch[]): number {
  let bytes = 0;
  for (const { batch, stored } of batches) {
    bytes += batch.length;
    if (stored !== undefined) bytes += (stored.body.buffer === batch.buffer ? 0 : stored.body.length) + stored.spanBytes;
  }
  return bytes;
}

/**
 * Puts the segments' keys in `map`, each at its latest offset, in order; how many went in whole
 * (what was put of the one that filled the map stays), and the bytes read. Those `read` has room
 * for are kept there for the cleaning pass.
 */
export function mapSegments(segments: readonly SegmentFile[], map: OffsetMap, read: SegmentsRead): { mapped: number; bytesRead: number } {
  let bytesRead = 0;
  for (const [i, segment] of segments.entries()) {
    let full = false;
    const batches: ReadBatch[] | undefined = read.hasRoomFor(segment.size) ? [] : undefined;
    eachSegmentBatch(segmentPath(segment), segment.size, (batch, header) => {
      const stored = untouchable(header) ? undefined : storedRecords(batch, MAX_DECOMPRESSED_BYTES);
      batches?.push({ batch, header, stored });
      for (let r = 0; r < (stored?.count ?? 0); r++) {
        if (stored!.hasKey(r) && !map.put(stored!.body, stored!.keyStart(r), stored!.keyEnd(r), header.baseOffset + stored!.offsetDelta(r))) {
          full = true;
          return false;
        }
      }
      return true;
    });
    bytesRead += segment.size;
    if (full) return { mapped: i, bytesRead };
    if (batches !== undefined) read.keep(segment, batches);
  }
  return { mapped: segments.length, bytesRead };
}

/** A segment to clean into the group being written, with what judging it needs. */
export interface SegmentToClean {
  readonly segment: SegmentFile;
  /** The offset it ends at: the next segment's base. */
  readonly end: number;
  readonly rules: CleaningRules;
  /** Each key's latest offset in the part of the log being cleaned. */
  readonly map: OffsetMap;
  readonly indexIntervalBytes: number;
  /** segment.bytes: a group of several segments is cleaned into this many bytes at most. */
  readonly maxBytes: number;
}

/**
 * The last batch of the group's newest segment, in the two forms it may take: as the group's
 * last (kept, so that the cleaned segment ends where the next begins) or, once another segment
 * joins, as any other batch. It is written when that is known.
 */
interface LastBatch {
  readonly header: BatchHeader;
  readonly original: Buffer;
  readonly asLast: Buffer | undefined;
  readonly asInner: Buffer | undefined;
}

/**
 * Adjacent segments being cleaned into one `.cleaned` segment, named for the first, as Kafka's
 * LogCleaner.groupSegmentsBySize groups them; but judged by the cleaned bytes, not the old ones:
 * a segment joins when what the group holds with it still fits in segment.bytes, so that
 * thousands of small segments become a few.
 */
export class CleanedGroup {
  private segments = 0;
  private changed = false;
  private last: LastBatch | undefined;
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;

  private constructor(private readonly out: Segment) {}

  static async open(first: SegmentFile): Promise<CleanedGroup> {
    const out = new Segment(first.dir, first.baseOffset, 0, OffsetIndex.empty(), CLEANED);
    await out.openForAppend(true);
    return new CleanedGroup(out);
  }

  get base(): number {
    return this.out.baseOffset;
  }

  /**
   * Cleans the segment into the group, from the batches the map's pass kept of it or else from
   * its file; false, the group as it was, when the group holds a segment already and it does not
   * fit. The bytes read from the file.
   */
  async add(work: SegmentToClean, kept: readonly ReadBatch[] | undefined): Promise<{ added: boolean; bytesRead: number }> {
    const { segment, end, rules, map, indexIntervalBytes, maxBytes } = work;
    // The index keeps offsets relative to the base in 32 bits.
    if (this.segments > 0 && end - 1 - this.base > 0xffff_ffff) return { added: false, bytesRead: 0 };
    // What is buffered at the mark is written before a roll back cuts the file to it.
    const mark = { out: this.out.mark(), changed: this.changed, last: this.last };
    if (this.last !== undefined) this.place(this.last.header, this.last.original, this.last.asInner, indexIntervalBytes);
    this.last = undefined;
    const visit = (batch: Buffer, header: BatchHeader, isLast: boolean, stored?: StoredRecords): void => {
      if (!isLast) return void this.place(header, batch, cleanedBatch(batch, header, rules, map, stored)(false), indexIntervalBytes);
      const original = kept === undefined ? Buffer.from(batch) : batch;
      const fate = cleanedBatch(original, header, rules, map, stored);
      this.last = { header, original, asLast: fate(true), asInner: fate(false) };
    };
    if (kept === undefined) eachSegmentBatch(segmentPath(segment), segment.size, visit);
    else kept.forEach(({ batch, header, stored }, i) => visit(batch, header, i === kept.length - 1, stored));
    const bytesRead = kept === undefined ? segment.size : 0;
    // Set by the walk above, which the compiler does not follow.
    const last = this.last as LastBatch | undefined;
    if (this.segments > 0 && this.out.size + (last?.asLast?.length ?? 0) > maxBytes) {
      this.flush();
      await this.out.rollBack(mark.out);
      this.changed = mark.changed;
      this.last = mark.last;
      return { added: false, bytesRead };
    }
    this.segments++;
    return { added: true, bytesRead };
  }

  /**
   * Writes the last batch, fsyncs the cleaned copy and closes it; undefined, nothing left behind,
   * when it is one segment's and cleaning changed nothing.
   */
  async seal(indexIntervalBytes: number): Promise<CleanedCopy | undefined> {
    let sealed = false;
    try {
      if (this.last !== undefined) this.place(this.last.header, this.last.original, this.last.asLast, indexIntervalBytes);
      this.flush();
      if (this.changed || this.segments > 1) {
        await this.out.seal();
        sealed = true;
      }
    } finally {
      await this.out.close();
      if (!sealed) await removeFiles(this.out);
    }
    if (!sealed) return undefined;
    return { size: this.out.size, largestTimestamp: this.out.largestTimestamp, firstTimestamp: this.out.firstTimestamp };
  }

  /** Drops the group: nothing of it is left. */
  async discard(): Promise<void> {
    await this.out.close();
    await removeFiles(this.out);
  }

  /** Adds `out`, what cleaning left of `batch`, to the copy. */
  private place(header: BatchHeader, batch: Buffer, out: Buffer | undefined, indexIntervalBytes: number): void {
    if (out !== batch) this.changed = true;
    if (out === undefined) return;
    this.out.place(header.baseOffset, out === batch ? header : readBatchHeader(out), indexIntervalBytes);
    this.buffered.push(out);
    this.bufferedBytes += out.length;
    // Written in large writes, so that a large segment is never held in memory.
    if (this.bufferedBytes >= WRITE_BYTES) this.flush();
  }

  private flush(): void {
    if (this.buffered.length > 0) this.out.write(this.buffered, this.out.appendIndex.entries);
    this.buffered = [];
    this.bufferedBytes = 0;
  }
}

/**
 * What of the batch stays, as the last of a segment or not (its records decompressed once for
 * both, or already by the map's pass: `stored`): the batch itself, a new one with some of its
 * records (or none), or nothing.
 */
function cleanedBatch(batch: Buffer, header: BatchHeader, rules: CleaningRules, map: OffsetMap, stored?: StoredRecords): (last: boolean) => Buffer | undefined {
  if (untouchable(header)) return () => batch;
  const records = stored ?? storedRecords(batch, MAX_DECOMPRESSED_BYTES);
  const judgedRecords: RecordToJudge[] = [];
  for (let r = 0; r < records.count; r++) {
    const keyed = records.hasKey(r);
    judgedRecords.push({
      offset: header.baseOffset + records.offsetDelta(r),
      keyed,
      latest: keyed ? map.get(records.body, records.keyStart(r), records.keyEnd(r)) : undefined,
      tombstone: records.tombstone(r),
    });
  }
  const judged: BatchToJudge = { baseOffset: header.baseOffset, time: batchTime(header), untouchable: false, records: judgedRecords };
  return (last) => {
    const fate = batchFate(judged, rules, last);
    if (fate.kind === 'whole') return batch;
    if (fate.kind === 'gone') return undefined;
    return batchOfRecords(
      batch,
      fate.keep.map((i) => records.record(i)),
    );
  };
}

/** Deletes the segment's cleaned copy, if any. */
export async function removeCleaned(segment: SegmentFile): Promise<void> {
  await removeFiles(new Segment(segment.dir, segment.baseOffset, 0, undefined, CLEANED));
}

async function removeFiles(segment: Segment): Promise<void> {
  await Promise.all([removeFile(segment.logPath), removeFile(segment.indexPath)]);
}
