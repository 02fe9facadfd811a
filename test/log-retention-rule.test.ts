import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { segmentsBelowStart, segmentsPastRetention, type RetentionLimits } from '../src/log/retention.js';

/** A segment as the model sees it: its batches' max and base timestamps (-1: unset) and its file's mtime. */
interface ModelSegment {
  readonly baseOffset: number;
  readonly size: number;
  readonly batches: readonly { readonly maxTimestamp: number; readonly baseTimestamp: number }[];
  readonly mtime: number;
}

/** What retention.ms measures: the largest batch time (its max timestamp, else its base timestamp), else the mtime. */
function modelTime(segment: ModelSegment): number {
  const times = segment.batches.map((b) => (b.maxTimestamp !== -1 ? b.maxTimestamp : b.baseTimestamp)).filter((t) => t >= 0);
  return times.length > 0 ? Math.max(...times) : segment.mtime;
}

/** The lookup the rule is given: the largest batch time, -1 when no batch has one. */
function largestBatchTime(segment: ModelSegment): number {
  return Math.max(-1, ...segment.batches.map((b) => (b.maxTimestamp !== -1 ? b.maxTimestamp : b.baseTimestamp)));
}

/** Whether segment `i` may go by itself: not the newest, written, and past one of the limits. */
function modelDeletable(segments: readonly ModelSegment[], i: number, limits: RetentionLimits): boolean {
  const next = segments[i + 1];
  if (next === undefined || next.baseOffset > limits.highWatermark) return false;
  const rest = segments.slice(i + 1).reduce((sum, s) => sum + s.size, 0);
  return (
    next.baseOffset <= limits.logStartOffset ||
    (limits.retentionBytes >= 0 && rest >= limits.retentionBytes) ||
    (limits.retentionMs >= 0 && limits.now - modelTime(segments[i]!) > limits.retentionMs)
  );
}

/** The longest run of oldest segments each of which may go. */
function modelDoomed(segments: readonly ModelSegment[], limits: RetentionLimits): number {
  let n = 0;
  while (modelDeletable(segments, n, limits)) n++;
  return n;
}

// Small ranges, so that sizes and times often meet the limits exactly.
const time = fc.integer({ min: -1, max: 20 });
const segmentsArb = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 0, max: 5 }),
      size: fc.integer({ min: 0, max: 5 }),
      batches: fc.array(fc.record({ maxTimestamp: time, baseTimestamp: time }), { maxLength: 4 }),
      mtime: fc.integer({ min: 0, max: 20 }),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((drawn) => {
    let base = 0;
    return drawn.map(({ gap, size, batches, mtime }) => ({ baseOffset: (base += gap), size, batches, mtime }));
  });
const limitsArb = fc.record({
  now: fc.integer({ min: 0, max: 40 }),
  retentionMs: fc.integer({ min: -1, max: 20 }),
  retentionBytes: fc.integer({ min: -1, max: 25 }),
  logStartOffset: fc.integer({ min: 0, max: 40 }),
  highWatermark: fc.integer({ min: 0, max: 40 }),
});

test('retention deletes the oldest segments, each wholly below the log start, beyond retention.bytes or past retention.ms, as the model says', async () => {
  await fc.assert(
    fc.asyncProperty(segmentsArb, limitsArb, async (segments, limits) => {
      const askedLargest: number[] = [];
      const askedMtime: number[] = [];
      const doomed = await segmentsPastRetention(segments, limits, {
        largestBatchTime: async (s) => {
          askedLargest.push(segments.indexOf(s));
          return largestBatchTime(s);
        },
        modifiedMs: async (s) => {
          askedMtime.push(segments.indexOf(s));
          return s.mtime;
        },
      });
      assert.equal(doomed, modelDoomed(segments, limits));
      assert.ok(doomed < segments.length, 'the newest segment stays');
      // Times are read only where they decide: up to the first segment kept, and the mtime only
      // of a segment none of whose batches has a time.
      for (const i of askedLargest) assert.ok(i <= doomed && limits.retentionMs >= 0, `largest time of segment ${i} asked`);
      for (const i of askedMtime) assert.ok(askedLargest.includes(i) && modelTime(segments[i]!) === segments[i]!.mtime, `mtime of segment ${i} asked`);
    }),
    { numRuns: 2000 },
  );
});

test('the segments wholly below the log start are those whose successor starts at or below it, never the newest', () => {
  fc.assert(
    fc.property(segmentsArb, fc.integer({ min: 0, max: 40 }), (segments, logStart) => {
      const below = segmentsBelowStart(segments, logStart);
      const expected = segments.slice(1).findIndex((s) => s.baseOffset > logStart);
      assert.equal(below, expected === -1 ? segments.length - 1 : expected);
    }),
  );
});

test('retention.ms measures a segment whose batches have no max timestamp by their base timestamps, and one with no times by its mtime', async () => {
  const limits = { now: 10_000, retentionMs: 1000, retentionBytes: -1, logStartOffset: 0, highWatermark: 100 };
  const run = (old: ModelSegment): Promise<number> =>
    segmentsPastRetention([old, { baseOffset: 10, size: 1, batches: [], mtime: 10_000 }], limits, {
      largestBatchTime: async (s) => largestBatchTime(s),
      modifiedMs: async (s) => s.mtime,
    });
  const segment = (batches: ModelSegment['batches'], mtime: number): ModelSegment => ({ baseOffset: 0, size: 1, batches, mtime });
  assert.equal(await run(segment([{ maxTimestamp: 9500, baseTimestamp: 1 }], 1)), 0, 'the max timestamp is recent');
  assert.equal(await run(segment([{ maxTimestamp: -1, baseTimestamp: 1 }], 9500)), 1, 'the base timestamp is old, whatever the mtime');
  assert.equal(await run(segment([{ maxTimestamp: -1, baseTimestamp: -1 }], 1)), 1, 'no times: the mtime is old');
  assert.equal(await run(segment([{ maxTimestamp: -1, baseTimestamp: -1 }], 9500)), 0, 'no times: the mtime is recent');
});
