/**
 * The cleaner's work on segment files, which runs on its own thread (clean-worker.ts): putting a
 * segment's keys in the offset map, and writing a segment's cleaned copy beside it.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { batchOfRecords, batchTime, isControl, isTransactional, readBatchHeader, storedRecords, type BatchHeader } from '../../protocol/record-batch.js';
import { OffsetIndex } from '../offset-index.js';
import { offsetFileName, Segment } from '../segment.js';
import { batchFate, type BatchToJudge, type CleaningRules } from './clean-rule.js';
import type { OffsetMap } from './offset-map.js';
import { eachSegmentBatch } from './segment-batches.js';
import { CLEANED } from './swap-files.js';

/** What the cleaned copy of a segment gathers before each write. */
const WRITE_BYTES = 64 * 1024;
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

/** Puts the segment's keys in `map`, each at its latest offset; false once the map is full (what was put stays). */
export async function mapSegment(segment: SegmentFile, map: OffsetMap): Promise<boolean> {
  let full = false;
  await eachSegmentBatch(segmentPath(segment), segment.size, (batch, header) => {
    if (untouchable(header)) return true;
    for (const record of storedRecords(batch, MAX_DECOMPRESSED_BYTES).records) {
      if (record.key !== undefined && !map.put(record.key, header.baseOffset + record.offsetDelta)) {
        full = true;
        return false;
      }
    }
    return true;
  });
  return !full;
}

/**
 * Writes the segment's cleaned copy beside it (`.cleaned`) and fsyncs it; undefined, nothing
 * left behind, when cleaning changes nothing.
 */
export async function cleanSegmentFile(segment: SegmentFile, rules: CleaningRules, indexIntervalBytes: number): Promise<CleanedCopy | undefined> {
  const cleaned = new Segment(segment.dir, segment.baseOffset, 0, OffsetIndex.empty(), CLEANED);
  let changed = false;
  let sealed = false;
  try {
    await cleaned.openForAppend(true);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = (): void => {
      if (pending.length > 0) cleaned.write(pending, cleaned.appendIndex.entries);
      pending = [];
      pendingBytes = 0;
    };
    await eachSegmentBatch(segmentPath(segment), segment.size, async (batch, header, last) => {
      const out = cleanedBatch(batch, header, rules, last);
      if (out !== batch) changed = true;
      if (out !== undefined) {
        cleaned.place(header.baseOffset, out === batch ? header : readBatchHeader(out), indexIntervalBytes);
        pending.push(out);
        pendingBytes += out.length;
      }
      // Written as it comes, so that a large segment is never held in memory.
      if (last || pendingBytes >= WRITE_BYTES) flush();
    });
    if (changed) {
      await cleaned.seal();
      sealed = true;
    }
  } finally {
    await cleaned.close();
    if (!sealed) await removeCleaned(segment);
  }
  if (!sealed) return undefined;
  return { size: cleaned.size, largestTimestamp: cleaned.largestTimestamp, firstTimestamp: cleaned.firstTimestamp };
}

/** What of the batch stays: the batch itself, a new one with some of its records (or none), or nothing. */
function cleanedBatch(batch: Buffer, header: BatchHeader, rules: CleaningRules, last: boolean): Buffer | undefined {
  if (untouchable(header)) return batch;
  const { body, records } = storedRecords(batch, MAX_DECOMPRESSED_BYTES);
  const judged: BatchToJudge = {
    baseOffset: header.baseOffset,
    time: batchTime(header),
    untouchable: false,
    records: records.map((r) => ({ offset: header.baseOffset + r.offsetDelta, key: r.key, tombstone: r.tombstone })),
  };
  const fate = batchFate(judged, rules, last);
  if (fate.kind === 'whole') return batch;
  if (fate.kind === 'gone') return undefined;
  return batchOfRecords(
    batch,
    fate.keep.map((i) => body.subarray(records[i]!.start, records[i]!.end)),
  );
}

/** Deletes the segment's cleaned copy, if any. */
export async function removeCleaned(segment: SegmentFile): Promise<void> {
  const cleaned = new Segment(segment.dir, segment.baseOffset, 0, undefined, CLEANED);
  await Promise.all([rm(cleaned.logPath, { force: true }), rm(cleaned.indexPath, { force: true })]);
}
