/**
 * Which old segments go: the rules of DeleteRecords' log start, retention.bytes and retention.ms,
 * as functions of the segments' offsets, sizes and times, touching no file.
 */

/** What the rules look at in a segment. */
export interface RetainedSegment {
  readonly baseOffset: number;
  readonly size: number;
}

/** Read as the rule goes, so that a log start or high watermark moved meanwhile counts. */
export interface RetentionLimits {
  readonly now: number;
  /** retention.ms; negative: no limit. */
  readonly retentionMs: number;
  /** retention.bytes, of the whole partition; negative: no limit. */
  readonly retentionBytes: number;
  /** Where DeleteRecords moved the log start. */
  readonly logStartOffset: number;
  readonly highWatermark: number;
}

/** A segment's times, looked up only for a segment whose age decides. */
export interface SegmentTimes<S> {
  /** Its largest batch time (a batch's max timestamp, its base timestamp when that is -1), -1 when no batch has one. */
  largestBatchTime(segment: S): Promise<number>;
  /** When its file was last written. */
  modifiedMs(segment: S): Promise<number>;
}

/** How many of the oldest segments lie wholly below `logStartOffset` (the next one starts at or below it); never the newest. */
export function segmentsBelowStart(segments: readonly RetainedSegment[], logStartOffset: number): number {
  let below = 0;
  while (below < segments.length - 1 && belowStart(segments[below + 1]!, logStartOffset)) below++;
  return below;
}

/** Whether the segment before `next` lies wholly below `logStartOffset`. */
function belowStart(next: RetainedSegment, logStartOffset: number): boolean {
  return next.baseOffset <= logStartOffset;
}

/**
 * How many of the oldest segments retention deletes, each for one reason in turn: wholly below
 * the log start; or the rest still holding at least retention.bytes without it; or older than
 * retention.ms, measured from its largest batch time or, when no batch has one, its file's mtime,
 * as Kafka's `UnifiedLog.deleteOldSegments` does. The first segment kept keeps all after it; the newest one, and any holding
 * offsets past the high watermark (not yet written), always stay.
 */
export async function segmentsPastRetention<S extends RetainedSegment>(
  segments: readonly S[],
  limits: RetentionLimits,
  times: SegmentTimes<S>,
): Promise<number> {
  const { now, retentionMs, retentionBytes } = limits;
  let total = segments.reduce((sum, s) => sum + s.size, 0);
  let doomed = 0;
  for (; doomed < segments.length - 1; doomed++) {
    const segment = segments[doomed]!;
    const next = segments[doomed + 1]!;
    if (next.baseOffset > limits.highWatermark) break;
    // In this order, so that a segment's times are read only if neither offsets nor sizes decide.
    const past =
      belowStart(next, limits.logStartOffset) ||
      (retentionBytes >= 0 && total - segment.size >= retentionBytes) ||
      (retentionMs >= 0 && now - (await retentionTime(segment, times)) > retentionMs);
    if (!past) break;
    total -= segment.size;
  }
  return doomed;
}

async function retentionTime<S>(segment: S, times: SegmentTimes<S>): Promise<number> {
  const largest = await times.largestBatchTime(segment);
  return largest >= 0 ? largest : times.modifiedMs(segment);
}
