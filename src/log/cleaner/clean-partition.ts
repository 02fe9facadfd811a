/**
 * One cleaning of one compacted partition, as Kafka's cleaner does it: the offset map is built
 * over the dirty segments (those not cleaned yet, up to the first too young for
 * min.compaction.lag.ms, never the one being written), as far as it has room for; then every
 * segment from the log start to where the map ends is rewritten by the cleaning rule and swapped
 * in, one at a time, each swap crash-safe (swap-files.ts).
 */
import type { PartitionLog } from '../partition-log.js';
import { Segment } from '../segment.js';
import type { CleanerThread } from './cleaner-thread.js';
import type { CompactionConfig } from './compaction-config.js';
import { removeCleaned, type SegmentFile } from './segment-work.js';
import { swapInCleaned } from './swap-files.js';

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

/**
 * Cleans the dirty part of `state` as far as the offset map on `thread` has room for; undefined
 * when it cannot hold even the first dirty segment's keys. `stopped` is asked between segments.
 */
export async function cleanPartition(
  log: PartitionLog,
  state: DirtyState,
  firstDirty: number,
  config: CompactionConfig,
  thread: CleanerThread,
  now: number,
  stopped: () => boolean,
): Promise<CleaningDone | undefined> {
  if (state.segments.length === 0) return undefined;
  await thread.clearMap();
  const file = (segment: Segment): SegmentFile => ({ dir: log.dir, baseOffset: segment.baseOffset, size: segment.size });
  let bytesRead = 0;
  // The map covers the dirty segments wholly put in it; a segment it fills up part way ends it,
  // its keys put so far standing for records that are really later.
  let mappedTo: number | undefined;
  const { segments } = state;
  for (let i = 0; i < segments.length && mappedTo === undefined; i++) {
    const segment = segments[i]!;
    const end = segments[i + 1]?.baseOffset;
    if (end !== undefined && end <= firstDirty) continue;
    if (!(await thread.mapSegment(file(segment)))) mappedTo = segment.baseOffset;
    bytesRead += segment.size;
    if (stopped()) return undefined;
  }
  const cleanTo = mappedTo ?? state.end;
  if (mappedTo !== undefined && mappedTo <= Math.max(firstDirty, segments[0]!.baseOffset)) return undefined;

  const { indexIntervalBytes } = log.cleanable();
  let bytesCleaned = 0;
  let bytesWritten = 0;
  let segmentsSwapped = 0;
  for (let i = 0; i < segments.length && !stopped(); i++) {
    const segment = segments[i]!;
    const end = segments[i + 1]?.baseOffset ?? state.end;
    if (end > cleanTo) break;
    const producerBatches = log.producerBatchOffsets(segment.baseOffset, end);
    const copy = await thread.cleanSegment(file(segment), now - config.deleteRetentionMs, producerBatches, indexIntervalBytes);
    bytesRead += segment.size;
    bytesCleaned += segment.size;
    if (copy === undefined) continue;
    const replacement = new Segment(log.dir, segment.baseOffset, copy.size);
    replacement.largestTimestamp = copy.largestTimestamp;
    replacement.firstTimestamp = copy.firstTimestamp;
    if (!(await log.replaceSegment(segment, replacement, () => swapInCleaned(log.dir, segment.baseOffset)))) {
      await removeCleaned(file(segment));
      continue;
    }
    bytesWritten += copy.size;
    segmentsSwapped++;
  }
  return { cleanedTo: cleanTo, bytesCleaned, bytesRead, bytesWritten, segmentsSwapped };
}
