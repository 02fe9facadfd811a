/**
 * One cleaning of one compacted partition, as Kafka's `Cleaner.clean` does it: the offset map is built
 * over the dirty segments (those not cleaned yet, up to the first too young for
 * min.compaction.lag.ms, never the one being written), as far as it has room for; then every
 * segment from the log start to where the map ends is rewritten by the cleaning rule, adjacent
 * ones into one while their cleaned bytes fit in segment.bytes (segment-work.ts), and each such
 * group swapped in for its segments, crash-safe (swap-files.ts).
 *
 * A cleaning stopped midway is done only up to the last group it swapped in: the log below is
 * clean (each key at most once there, judged by a map of everything up to the map's end), what
 * follows is not.
 */
import type { PartitionLog } from '../partition-log.js';
import { Segment } from '../segment.js';
import type { SegmentRun } from './clean-worker.js';
import type { CleanerThread } from './cleaner-thread.js';
import type { IoThrottle } from './io-throttle.js';
import type { CompactionConfig } from './compaction-config.js';
import { removeCleaned, type SegmentFile } from './segment-work.js';
import { swapInCleaned, type SwapStepHook } from './swap-files.js';

/** What one request to map or clean segments takes at most, unless one segment is larger. */
const MAP_CALL_SEGMENTS = 256;
const MAP_CALL_BYTES = 16 * 1024 * 1024;

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
  /** Where the next cleaning's dirty part begins: `firstDirty` still when stopped before the rewrites passed it. */
  readonly cleanedTo: number;
  /** Whether it was stopped before it rewrote all it meant to. */
  readonly stopped: boolean;
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

/** Where a call to the thread that starts at `segments[from]` ends (exclusive), up to `to`: one segment at least. */
function callEnd(segments: readonly Segment[], from: number, to: number): number {
  let end = from + 1;
  let bytes = segments[from]!.size;
  while (end < to && end - from < MAP_CALL_SEGMENTS && bytes + segments[end]!.size <= MAP_CALL_BYTES) bytes += segments[end++]!.size;
  return end;
}

/** How a cleaning is stopped, and a hook for tests to stop it at a chosen point. */
export interface CleaningControl {
  /** Asked between segments: true stops the cleaning there, the group being written dropped. */
  readonly stopped: () => boolean;
  /** Called after each group's swap with the number of swaps so far in this cleaning; the cleaning waits for what it returns. */
  readonly afterSwap?: (swaps: number) => void | Promise<unknown>;
  /** Called after each step of each swap: a test kills the process there. */
  readonly atSwapStep?: SwapStepHook;
  /** Holds the cleaner's reads and writes to log.cleaner.io.max.bytes.per.second. */
  readonly throttle?: IoThrottle;
}

/**
 * Cleans the dirty part of `state` as far as the offset map on `thread` has room for; undefined
 * when it cannot hold even the first dirty segment's keys.
 */
export async function cleanPartition(
  log: PartitionLog,
  state: DirtyState,
  firstDirty: number,
  config: CompactionConfig,
  thread: CleanerThread,
  now: number,
  control: CleaningControl,
): Promise<CleaningDone | undefined> {
  if (state.segments.length === 0) return undefined;
  await thread.clearMap();
  const file = (segment: Segment): SegmentFile => ({ dir: log.dir, baseOffset: segment.baseOffset, size: segment.size });
  // What is done so far: a stop returns it as it stands. Below `cleanedTo`, every segment is swapped in.
  const done = { cleanedTo: firstDirty, stopped: true, bytesCleaned: 0, bytesRead: 0, bytesWritten: 0, segmentsSwapped: 0 };
  const { segments } = state;
  const endOf = (i: number): number => segments[i + 1]?.baseOffset ?? state.end;

  // The map covers the dirty segments wholly put in it; a segment it fills up part way ends it,
  // its keys put so far standing for records that are really later. Segments go to the thread
  // a few at a time, so that the stop and the throttle are heard often.
  const dirty = segments.filter((_, i) => endOf(i) > firstDirty);
  let mappedTo: number | undefined;
  for (let i = 0; i < dirty.length && mappedTo === undefined;) {
    const call = dirty.slice(i, (i = callEnd(dirty, i, dirty.length)));
    const { mapped, bytesRead } = await thread.mapSegments(call.map(file));
    if (mapped < call.length) mappedTo = call[mapped]!.baseOffset;
    done.bytesRead += bytesRead;
    await control.throttle?.maybeThrottle(bytesRead);
    if (control.stopped()) return done;
  }
  const cleanTo = mappedTo ?? state.end;
  if (mappedTo !== undefined && mappedTo <= Math.max(firstDirty, segments[0]!.baseOffset)) return undefined;

  const { indexIntervalBytes, segmentBytes } = log.cleanable();
  // The segments being cleaned into one, and where they end.
  let group: Segment[] = [];
  let groupEnd = 0;
  /** Swaps the group's cleaned copy in; false when the log will not take it, which ends the cleaning. */
  const swapGroup = async (): Promise<boolean> => {
    const olds = group;
    group = [];
    const copy = await thread.sealGroup(indexIntervalBytes);
    await control.throttle?.maybeThrottle(copy?.size ?? 0);
    if (copy !== undefined) {
      const replacement = new Segment(log.dir, olds[0]!.baseOffset, copy.size);
      replacement.largestTimestamp = copy.largestTimestamp;
      replacement.firstTimestamp = copy.firstTimestamp;
      const bases = olds.map((old) => old.baseOffset);
      if (!(await log.replaceSegments(olds, replacement, () => swapInCleaned(log.dir, bases, control.atSwapStep)))) {
        await removeCleaned(file(olds[0]!));
        // Unless retention or DeleteRecords deleted them meanwhile (nothing of them is left to clean), the log is closing or failed.
        return groupEnd <= log.logStartOffset;
      }
      done.bytesWritten += copy.size;
      done.segmentsSwapped++;
      await control.afterSwap?.(done.segmentsSwapped);
    }
    done.cleanedTo = Math.max(done.cleanedTo, groupEnd);
    return true;
  };
  // The segments to clean go to the thread a few at a time, as the map's did; each call ends
  // early where the group is full, which is then swapped in.
  let cleaning = 0;
  while (cleaning < segments.length && endOf(cleaning) <= cleanTo) cleaning++;
  for (let i = 0; i < cleaning;) {
    if (control.stopped()) {
      await thread.discardGroup();
      return done;
    }
    const call: SegmentRun[] = [];
    for (let at = i, to = callEnd(segments, i, cleaning); at < to; at++) call.push({ segment: file(segments[at]!), end: endOf(at) });
    const windows = log.producerBatchOffsets(call[0]!.segment.baseOffset, call[call.length - 1]!.end);
    const { taken, bytesRead } = await thread.cleanInto(call, now - config.deleteRetentionMs, windows, indexIntervalBytes, segmentBytes);
    for (const { segment, end } of call.slice(0, taken)) {
      group.push(segments[i++]!);
      groupEnd = end;
      done.bytesCleaned += segment.size;
    }
    done.bytesRead += bytesRead;
    await control.throttle?.maybeThrottle(bytesRead);
    if (taken < call.length && !(await swapGroup())) return done;
  }
  if (group.length > 0 && !(await swapGroup())) return done;
  return { ...done, cleanedTo: cleanTo, stopped: false };
}
