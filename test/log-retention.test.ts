import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { check } from '../src/idempotence/rules.js';
import { offsetFileName } from '../src/log/segment.js';
import { appendAll, batch, crashImage, openLog, producerBatches, readAll, tempDir, written } from './helpers/log.js';

const DAY = 86_400_000;

async function names(dir: string, suffix: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith(suffix)).sort();
}

test('retention.bytes deletes whole old segments, never the active one, and moves the log start', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { segmentBytes: 1000, retentionBytes: 2500, retentionMs: -1 });
  const batches = Array.from({ length: 60 }, (_, i) => batch(1 + (i % 3)));
  appendAll(log, batches);
  await log.whenWritten(log.logEndOffset - 1);
  const before = await names(dir, '.log');
  await log.enforceRetention(Date.now());
  const after = await names(dir, '.log');
  assert.ok(after.length < before.length && after.length >= 3, `${before.length} segments, then ${after.length}`);
  assert.deepEqual(after, before.slice(before.length - after.length));
  assert.deepEqual(
    await names(dir, '.index'),
    after.map((n) => n.replace('.log', '.index')),
  );
  assert.equal(offsetFileName(log.logStartOffset, '.log'), after[0]);
  assert.equal((await log.read(0, 1000)).length, 0, 'deleted offsets are not served');
  const kept = await readAll(log);
  assert.deepEqual(
    kept,
    batches.slice(batches.length - kept.length).map((b) => b.bytes),
  );

  const strict = await openLog(t, await tempDir(t), { segmentBytes: 1000, retentionBytes: 0, retentionMs: -1 });
  appendAll(strict, batches);
  await strict.whenWritten(strict.logEndOffset - 1);
  await strict.enforceRetention(Date.now());
  assert.ok(strict.logStartOffset > 0 && strict.highWatermark > strict.logStartOffset, 'the active segment stays');
});

test('retention right after a roll, before the new segment is first written, leaves the rolled segment to be sealed', async (t) => {
  const log = await openLog(t, await tempDir(t), { segmentBytes: 200, retentionBytes: 0, retentionMs: -1 });
  appendAll(log, [batch(3), batch(3)]);
  await log.whenWritten(log.logEndOffset - 1);
  // This batch rolls: every offset of the old segment is below the high watermark, but the writer
  // has not yet moved to the new one, which seals the old one at its first write.
  const rolled = written(log.append(batch(3).bytes, batch(3).header, Date.now()));
  assert.ok(rolled > 0);
  await log.enforceRetention(Date.now());
  await log.whenWritten(rolled);
  // Retention runs after the housekeeping queued so far: the sealing of the rolled segment.
  await log.enforceRetention(Date.now());
  assert.equal(log.failed, false, 'the partition goes on');
  assert.equal(log.logStartOffset, rolled, 'the rolled segment is deleted once sealed');
});

test('retention.ms deletes segments whose newest batch is older than that', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { segmentBytes: 600, retentionMs: DAY });
  const t0 = 1_000_000_000;
  const batches = Array.from({ length: 30 }, (_, i) => batch(2, { baseTimestamp: t0 + i * 3_600_000 }));
  appendAll(log, batches, t0);
  await log.whenWritten(log.logEndOffset - 1);
  await log.enforceRetention(t0 + 10 * 3_600_000 + DAY);
  // Batches 0..10 are a day old or older; the first kept segment holds the first younger one, or follows it.
  const firstKept = await log.read(log.logStartOffset, 1);
  const keptIndex = batches.findIndex((b) => b.bytes.equals(firstKept));
  assert.ok(keptIndex > 0 && keptIndex <= 11, `first kept batch ${keptIndex}`);
  assert.equal(log.logStartOffset, keptIndex * 2);
});

test('a live idle producer keeps its state when retention deletes its batches (KAFKA-7190), until it expires', async (t) => {
  const dir = await tempDir(t);
  const options = { segmentBytes: 800, retentionBytes: 1000, retentionMs: -1, producerIdExpirationMs: DAY };
  const log = await openLog(t, dir, options);
  const t0 = 2_000_000_000;
  const idle = producerBatches(7n, [3], { baseTimestamp: t0 });
  const busy = producerBatches(
    8n,
    Array.from({ length: 40 }, () => 2),
    { baseTimestamp: t0 + 1000 },
  );
  appendAll(log, idle, t0);
  appendAll(log, busy, t0 + 1000);
  await log.whenWritten(log.logEndOffset - 1);
  await log.enforceRetention(t0 + 2000);
  assert.ok(log.logStartOffset > 3, 'the idle producer’s batch is gone');

  const next = { epoch: 0, firstSeq: 3, count: 1 };
  assert.deepEqual(check(log.producerState(7n)?.state, next), { kind: 'append' });
  await log.close();

  const reopened = await openLog(t, dir, options);
  assert.deepEqual(check(reopened.producerState(7n)?.state, next), { kind: 'append' }, 'and after a restart');
  assert.ok((await names(dir, '.snapshot')).every((n) => Number(n.slice(0, 20)) >= reopened.logStartOffset));

  await reopened.enforceRetention(t0 + DAY);
  assert.equal(reopened.producerState(7n), undefined, 'expired a day after its last write');
  assert.ok(reopened.producerState(8n) !== undefined, 'the busy one wrote later');
  assert.deepEqual(check(reopened.producerState(7n)?.state, next), { kind: 'out_of_order' });
});

test("expiry counts from when the broker wrote a producer's batch, not the time the batch carries: old event times, -1, or a clock behind", async (t) => {
  const options = { segmentBytes: 800, retentionMs: -1, producerIdExpirationMs: DAY };
  const now = 2_000_000_000;
  for (const baseTimestamp of [now - 30 * DAY, -1, 0]) {
    const dir = await tempDir(t);
    const log = await openLog(t, dir, options);
    appendAll(log, producerBatches(7n, [2, 2], { baseTimestamp }), now);
    await log.enforceRetention(now + 1000);
    const next = { epoch: 0, firstSeq: 4, count: 1 };
    assert.deepEqual(check(log.producerState(7n)?.state, next), { kind: 'append' }, `a batch stamped ${baseTimestamp}, written a second ago`);
    await log.enforceRetention(now + DAY);
    assert.equal(log.producerState(7n), undefined, 'gone a day after the write');
  }
});

test('a producer whose batches are replayed at a restart counts as written then', async (t) => {
  const options = { segmentBytes: 100_000, retentionMs: -1, producerIdExpirationMs: DAY };
  const dir = await tempDir(t);
  const log = await openLog(t, dir, options);
  appendAll(log, producerBatches(7n, [2], { baseTimestamp: 1000 }), 1000);
  await log.whenWritten(log.logEndOffset - 1);
  const image = await crashImage(dir, t);
  const restarted = Date.now();
  const recovered = await openLog(t, image, options);
  assert.ok(recovered.recovery.replayedBatches > 0, 'no snapshot: the batch is replayed');
  await recovered.enforceRetention(restarted + 1000);
  assert.ok(recovered.producerState(7n) !== undefined, 'kept: written, as far as the broker knows, at the restart');
  await recovered.enforceRetention(restarted + DAY + 60_000);
  assert.equal(recovered.producerState(7n), undefined);
});
