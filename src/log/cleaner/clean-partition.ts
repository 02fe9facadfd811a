/**
 * One cleaning of one compacted partition, as Kafka's cleaner does it: the offset map is built
 * over the dirty segments (those not cleaned yet, up to the first too young for
 * min.compaction.lag.ms, never the one being written), as far as it has room for; then every
 * segment from the log start to where the map ends is rewritten by the cleaning rule and swapped
 * in, one at a time, each swap crash-safe (swap-files.ts).
 */
import { rm } from 'node:fs/promises';
import { isControl, isTransactional, readBatchHeader, storedRecords, batchOfRecords, type BatchHeader, batchTime } from '../../protocol/record-batch.js';
import { OffsetIndex } from '../offset-index.js';
import type { PartitionLog } from '../partition-log.js';
import { Segment } from '../segment.js';
import { batchFate, type BatchToJudge, type CleaningRules } from './clean-rule.js';
import type { CompactionConfig } from './compaction-config.js';
import type { OffsetMap } from './offset-map.js';
import { eachSegmentBatch } from './segment-batches.js';
import { CLEANED, swapInCleaned } from './swap-files.js';

/** What the cleaned copy of a segment gathers before each write. */
const WRITE_BYTES = 64 * 1024;
/** The most one batch's records may take decompressed, for the cleaner to judge them. */
const MAX_DECOMPRESSED_BYTES = 256 * 1024 * 1024;

export interface DirtyState {
  /** Segments the cleaner may rewrite now. */
  readonly segments: readonly Segment[];
  /** The offset they end at. */
  readonly end: number;
  /** Bytes of them from the first dirty offset on, and in all. */
  readonly dirtyBytes: number;
  readonly totalBytes: number;
  /** Whether max.compaction.lag.ms says the dirty part must be cleaned now. */
  readonly overdue: boolean;
}

export interface CleaningDone {
  /** Where the next cleaning's dirty part begins. */
  readonly cleanedTo: number;
  /** Bytes of the segments cleaned. */
  readonly bytesCleaned: number;
  /** Bytes read, building the offset map and cleaning. */
  readonly bytesRead: number;
  readonly bytesWritten: number;
  readonly segmentsSwapped: number;
}

/** What of the log may be cleaned now, and how dirty it is; `firstDirty` is where the last cleaning's map ended. */
export async function dirtyState(log: PartitionLog, firstDirty: number, config: CompactionConfig, now: number): Promise<DirtyState> {
  const cleanable = log.cleanable();
  const { time } = cleanable;
  const segments: Segment[] = [];
  let end = cleanable.end;
  for (const segment of cleanable.segments) {
    if (config.minCompactionLagMs > 0 && (await time(segment)) > now - config.minCompactionLagMs) {
      end = segment.baseOffset;
      break;
    }
    segments.push(segment);
  }
  let dirtyBytes = 0;
  let totalBytes = 0;
  let firstDirtySegment: Segment | undefined;
  segments.forEach((segment, i) => {
    totalBytes += segment.size;
    if ((segments[i + 1]?.baseOffset ?? end) > firstDirty) {
      dirtyBytes += segment.size;
      firstDirtySegment ??= segment;
    }
  });
  const overdue = firstDirtySegment !== undefined && config.maxCompactionLagMs < now && (await time(firstDirtySegment)) < now - config.maxCompactionLagMs;
  return { segments, end, dirtyBytes, totalBytes, overdue };
}

/** Whether a batch is one the rule cannot judge yet: a transaction's, or a control batch. */
function untouchable(header: BatchHeader): boolean {
  return isControl(header.attributes) || isTransactional(header.attributes);
}

/**
 * Cleans the dirty part of `state` as far as `map` has room for; undefined when the map cannot
 * hold even the first dirty segment's keys. `stopped` is asked between segments.
 */
export async function cleanPartition(
  log: PartitionLog,
  state: DirtyState,
  firstDirty: number,
  config: CompactionConfig,
  map: OffsetMap,
  now: number,
  stopped: () => boolean,
): Promise<CleaningDone | undefined> {
  if (state.segments.length === 0) return undefined;
  map.clear();
  let bytesRead = 0;
  // The map covers the dirty segments wholly put in it; a segment it fills up part way ends it,
  // its keys put so far standing for records that are really later.
  let mappedTo: number | undefined;
  const { segments } = state;
  for (let i = 0; i < segments.length && mappedTo === undefined; i++) {
    const segment = segments[i]!;
    const end = segments[i + 1]?.baseOffset;
    if (end !== undefined && end <= firstDirty) continue;
    let full = false;
    await eachSegmentBatch(segment.logPath, segment.size, (batch, header) => {
      if (untouchable(header)) return true;
      for (const record of storedRecords(batch, MAX_DECOMPRESSED_BYTES).records) {
        if (record.key !== undefined && !map.put(record.key, header.baseOffset + record.offsetDelta)) {
          full = true;
          return false;
        }
      }
      return true;
    });
    bytesRead += segment.size;
    if (full) mappedTo = segment.baseOffset;
    if (stopped()) return undefined;
  }
  const cleanTo = mappedTo ?? state.end;
  if (mappedTo !== undefined && mappedTo <= Math.max(firstDirty, segments[0]!.baseOffset)) return undefined;

  let bytesCleaned = 0;
  let bytesWritten = 0;
  let segmentsSwapped = 0;
  for (let i = 0; i < segments.length && !stopped(); i++) {
    const segment = segments[i]!;
    if ((segments[i + 1]?.baseOffset ?? state.end) > cleanTo) break;
    const producerBatches = new Set([...log.producers()].flatMap(([, entry]) => entry.state.window.map((w) => w.baseOffset)));
    const rules: CleaningRules = { latest: (key) => map.get(key), tombstonesBefore: now - config.deleteRetentionMs, producerBatches };
    const rewritten = await rewriteSegment(log, segment, rules);
    bytesRead += segment.size;
    bytesCleaned += segment.size;
    if (rewritten === undefined) continue;
    const swapped = await log.replaceSegment(segment, rewritten, () => swapInCleaned(log.dir, segment.baseOffset));
    if (!swapped) {
      await removeCleaned(rewritten);
      continue;
    }
    bytesWritten += rewritten.size;
    segmentsSwapped++;
  }
  return { cleanedTo: cleanTo, bytesCleaned, bytesRead, bytesWritten, segmentsSwapped };
}

/**
 * The segment's cleaned copy, written and fsynced beside it (`.cleaned`), as a segment under the
 * segment's own names, ready to swap in; undefined, nothing left behind, when cleaning changes nothing.
 */
async function rewriteSegment(log: PartitionLog, segment: Segment, rules: CleaningRules): Promise<Segment | undefined> {
  const { indexIntervalBytes } = log.cleanable();
  const cleaned = new Segment(log.dir, segment.baseOffset, 0, OffsetIndex.empty(), CLEANED);
  let changed = false;
  try {
    await cleaned.openForAppend(true);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async (): Promise<void> => {
      if (pending.length > 0) await cleaned.write(pending, cleaned.appendIndex.entries);
      pending = [];
      pendingBytes = 0;
    };
    await eachSegmentBatch(segment.logPath, segment.size, async (batch, header, last) => {
      const out = cleanedBatch(batch, header, rules, last);
      if (out !== batch) changed = true;
      if (out !== undefined) {
        cleaned.place(header.baseOffset, out === batch ? header : readBatchHeader(out), indexIntervalBytes);
        pending.push(out);
        pendingBytes += out.length;
      }
      // Written as it comes, so that a large segment is never held in memory.
      if (last || pendingBytes >= WRITE_BYTES) await flush();
    });
    if (!changed) {
      await removeCleaned(cleaned);
      return undefined;
    }
    await cleaned.seal();
    await cleaned.close();
  } catch (err) {
    await removeCleaned(cleaned);
    throw err;
  }
  const replacement = new Segment(log.dir, segment.baseOffset, cleaned.size, await cleaned.index());
  replacement.largestTimestamp = cleaned.largestTimestamp;
  replacement.firstTimestamp = cleaned.firstTimestamp;
  return replacement;
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

async function removeCleaned(segment: Segment): Promise<void> {
  await segment.close();
  await Promise.all([rm(segment.logPath, { force: true }), rm(segment.indexPath, { force: true })]);
}
