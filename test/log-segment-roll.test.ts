import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BatchHeader } from '../src/protocol/record-batch.js';
import { shouldRoll, type RollingSegment } from '../src/log/segment-roll.js';
import { batch } from './helpers/log.js';

const LIMITS = { segmentBytes: 1000, segmentMs: 60_000 };
const T0 = 1_700_000_000_000;

/** A stored batch's header with the size and max timestamp given. */
function header(size: number, maxTimestamp: number): BatchHeader {
  return { ...batch(1, { baseTimestamp: T0 }).header, size, maxTimestamp };
}

const segment = (size: number, firstTimestamp: number | undefined, baseOffset = 0): RollingSegment => ({ baseOffset, size, firstTimestamp });

test('segment.bytes: a batch that would take the segment past it starts a new one, unless the segment is empty', () => {
  assert.equal(shouldRoll(segment(900, T0), header(100, T0), 10, T0, T0, LIMITS), false, 'exactly full');
  assert.equal(shouldRoll(segment(900, T0), header(101, T0), 10, T0, T0, LIMITS), true);
  assert.equal(shouldRoll(segment(0, undefined), header(5000, T0), 10, T0, T0, LIMITS), false, 'an empty segment takes any batch');
});

test("segment.ms: a batch's time against the first batch's, or, when the first had none, how long the segment has been active", () => {
  assert.equal(shouldRoll(segment(100, T0), header(100, T0 + 60_000), 10, T0, T0, LIMITS), false);
  assert.equal(shouldRoll(segment(100, T0), header(100, T0 + 60_001), 10, T0, T0, LIMITS), true);
  assert.equal(shouldRoll(segment(100, T0), header(100, T0 - 5 * 60_000), 10, T0 + 10 * 60_000, T0, LIMITS), false, 'an older batch, whatever the clock');
  assert.equal(shouldRoll(segment(100, -1), header(100, -1), 10, T0 + 60_000, T0, LIMITS), false);
  assert.equal(shouldRoll(segment(100, -1), header(100, -1), 10, T0 + 60_001, T0, LIMITS), true);
});

test('an offset beyond 32 bits of the base offset starts a new segment', () => {
  const base = 7;
  assert.equal(shouldRoll(segment(100, T0, base), header(100, T0), base + 0xffffffff, T0, T0, LIMITS), false);
  assert.equal(shouldRoll(segment(100, T0, base), header(100, T0), base + 0x100000000, T0, T0, LIMITS), true);
});
