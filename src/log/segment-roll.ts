/** When a partition starts a new segment: segment.bytes, segment.ms, or relative offsets running out. */
import type { BatchHeader } from '../protocol/record-batch.js';

/** Relative offsets in the index are 32-bit. */
const MAX_RELATIVE_OFFSET = 0xffffffff;

/** What the rule looks at in the active segment. */
export interface RollingSegment {
  readonly baseOffset: number;
  /** Bytes, counting batches queued but not yet written. */
  readonly size: number;
  /** Time of its first batch; undefined before it has one. */
  readonly firstTimestamp: number | undefined;
}

export interface RollLimits {
  readonly segmentBytes: number;
  readonly segmentMs: number;
}

/**
 * Whether the batch `header`, to take offset `baseOffset`, goes into a new segment rather than
 * `segment`. An empty segment always takes it. Age is, as in Kafka, the batch's time against the
 * first batch's (so that old timestamps do not roll every batch), or, when the first batch had no
 * time, how long ago `activeSince` (when the segment was started, or this run began) was.
 */
export function shouldRoll(segment: RollingSegment, header: BatchHeader, baseOffset: number, now: number, activeSince: number, limits: RollLimits): boolean {
  if (segment.size === 0) return false;
  const first = segment.firstTimestamp ?? -1;
  const age = first >= 0 ? header.maxTimestamp - first : now - activeSince;
  return segment.size + header.size > limits.segmentBytes || age > limits.segmentMs || baseOffset - segment.baseOffset > MAX_RELATIVE_OFFSET;
}
