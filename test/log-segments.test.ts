import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import type { PartitionLog } from '../src/log/partition-log.js';
import { offsetFileName } from '../src/log/segment.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { buildBatch } from './helpers/batch.js';
import { appendAll, batch, batchesIn, openLog, readAll, tempDir, written, type TestBatch } from './helpers/log.js';

const SMALL = { segmentBytes: 2000, indexIntervalBytes: 256 };

/** Batches of 1..7 records with varied timestamps, some far apart. */
function mixedBatches(n: number): TestBatch[] {
  return Array.from({ length: n }, (_, i) => batch(1 + (i % 7), { baseTimestamp: 1_000_000 + ((i * 37) % 101) * 1000 }, `b${i}-`));
}

async function logFiles(dir: string, suffix: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith(suffix)).sort();
}

/** Checks that a read at every offset returns the batch holding it first, byte for byte. */
async function assertEveryOffsetReadable(log: PartitionLog, expected: readonly Buffer[]): Promise<void> {
  let offset = 0;
  for (const bytes of expected) {
    const h = readBatchHeader(bytes);
    for (let o = offset; o <= h.baseOffset + h.lastOffsetDelta; o++) {
      const got = batchesIn(await log.read(o, 1));
      assert.equal(got.length, 1, `one batch at offset ${o}`);
      assert.deepEqual(got[0], bytes, `batch holding offset ${o}`);
    }
    offset = h.baseOffset + h.lastOffsetDelta + 1;
  }
}

test('append assigns consecutive offsets, rolls segments at segmentBytes and reads whole batches from disk', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { ...SMALL, tailCacheBytes: 0 });
  const batches = mixedBatches(60);
  const bases = appendAll(log, batches);
  let expectedBase = 0;
  for (const [i, b] of batches.entries()) {
    assert.equal(bases[i], expectedBase);
    assert.equal(readBatchHeader(b.bytes).baseOffset, expectedBase, 'baseOffset written into the batch');
    expectedBase += b.header.recordCount;
  }
  assert.equal(log.logEndOffset, expectedBase);
  assert.equal(log.highWatermark, 0, 'nothing is readable before the write');
  await log.whenWritten(log.logEndOffset - 1);
  assert.equal(log.highWatermark, log.logEndOffset);

  const segments = await logFiles(dir, '.log');
  assert.ok(segments.length >= 3, `several segments, got ${segments.length}`);
  assert.equal(segments[0], offsetFileName(0, '.log'));
  const expected = batches.map((b) => b.bytes);
  await assertEveryOffsetReadable(log, expected);
  assert.deepEqual(await readAll(log), expected);
  await log.close();
});

test('after a reopen the stored indexes find every batch, and maxBytes bounds a read but never below one batch', async (t) => {
  const dir = await tempDir(t);
  const first = await openLog(t, dir, SMALL);
  const batches = mixedBatches(80);
  appendAll(first, batches);
  await first.close();
  assert.ok((await logFiles(dir, '.index')).length > 1);

  const log = await openLog(t, dir, { ...SMALL, tailCacheBytes: 0 });
  const expected = batches.map((b) => b.bytes);
  await assertEveryOffsetReadable(log, expected);

  const many = batchesIn(await log.read(0, 10_000));
  assert.ok(many.length > 1, 'several batches fit');
  assert.ok(many.reduce((n, b) => n + b.length, 0) <= 2000, 'within one segment');
  assert.deepEqual(many, expected.slice(0, many.length));
  const limited = batchesIn(await log.read(0, expected[0]!.length + expected[1]!.length));
  assert.deepEqual(limited, expected.slice(0, 2));
  assert.deepEqual(await log.read(0, 0), expected[0], 'at least one batch');
  assert.equal((await log.read(log.highWatermark, 1000)).length, 0);
  assert.equal((await log.read(-1, 1000)).length, 0);
});

test('a read from disk starts at the batch holding the offset and returns whole stored batches in order, nearly as many as fit, for any sizes, index interval and maxBytes', async (t) => {
  const dir = await tempDir(t);
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({ records: fc.integer({ min: 1, max: 5 }), valueBytes: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 3000 })) }),
        { minLength: 1, maxLength: 80 },
      ),
      fc.integer({ min: 1, max: 8000 }),
      fc.integer({ min: 300, max: 60_000 }),
      fc.array(fc.tuple(fc.nat(), fc.oneof(fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 0, max: 30_000 }))), { minLength: 1, maxLength: 10 }),
      async (shapes, indexIntervalBytes, segmentBytes, reads) => {
        const runDir = join(dir, `run-${run++}`);
        const stored = shapes.map(({ records, valueBytes }, i) =>
          buildBatch(Array.from({ length: records }, (_, r) => ({ value: Buffer.alloc(valueBytes, 97 + ((i + r) % 26)) }))),
        );
        // A segment holds the largest batch: the log refuses a batch larger than segment.bytes.
        const fitting = Math.max(segmentBytes, ...stored.map((b) => b.length));
        const log = await openLog(t, runDir, { indexIntervalBytes, segmentBytes: fitting, tailCacheBytes: 0 });
        const bases = appendAll(
          log,
          stored.map((bytes) => ({ bytes, header: readBatchHeader(bytes) })),
        );
        await log.whenWritten(log.logEndOffset - 1);
        const segmentBases = (await logFiles(runDir, '.log')).map((name) => Number(name.slice(0, 20)));
        for (const [pick, maxBytes] of reads) {
          const offset = pick % log.logEndOffset;
          const got = batchesIn(await log.read(offset, maxBytes));
          const first = bases.filter((base) => base <= offset).length - 1;
          assert.ok(got.length >= 1, `a batch for offset ${offset}`);
          // append writes each base offset into the batch it was given: stored and sent are equal.
          assert.deepEqual(got, stored.slice(first, first + got.length), `batches from the one holding offset ${offset}`);
          const total = got.reduce((n, b) => n + b.length, 0);
          assert.ok(got.length === 1 || total <= maxBytes, `${total} bytes in ${got.length} batches for maxBytes ${maxBytes}`);
          // What fits from that batch on, in its segment; a read may fall short by an eighth of maxBytes and a partial batch.
          const segmentEnd = segmentBases.find((base) => base > offset) ?? Infinity;
          let fits = 0;
          let largest = 0;
          for (let i = first; i < stored.length && bases[i]! < segmentEnd; i++) {
            if (i > first && fits + stored[i]!.length > maxBytes) break;
            fits += stored[i]!.length;
            largest = Math.max(largest, stored[i]!.length);
          }
          assert.ok(total >= fits - maxBytes / 8 - largest, `${total} bytes where ${fits} fit, maxBytes ${maxBytes}`);
        }
        await log.close();
      },
    ),
    { numRuns: 40 },
  );
});

test('a read from disk between index entries returns nearly as many batches as fit in maxBytes', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { indexIntervalBytes: 4096, tailCacheBytes: 0 });
  const stored = Array.from({ length: 300 }, (_, i) => batch(1, {}, `small-${i}-`));
  appendAll(log, stored);
  await log.whenWritten(log.logEndOffset - 1);
  const size = stored[0]!.bytes.length;
  const maxBytes = 4096;
  // Offsets whose batch lies well past the index entry before it are the ones that could lose room.
  for (let offset = 0; offset < 250; offset++) {
    const total = (await log.read(offset, maxBytes)).length;
    assert.ok(total >= maxBytes - maxBytes / 8 - size, `${total} bytes of ${size}-byte batches at offset ${offset} for maxBytes ${maxBytes}`);
  }
});

test('the tail cache serves the same bytes as the disk', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { ...SMALL, tailCacheBytes: 1 << 20 });
  const batches = mixedBatches(40);
  appendAll(log, batches);
  await log.whenWritten(log.logEndOffset - 1);
  await assertEveryOffsetReadable(
    log,
    batches.map((b) => b.bytes),
  );
});

test("a batch larger than segmentBytes or maxMessageBytes is refused with Kafka's error and appends nothing, as Kafka's log refuses it", async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { segmentBytes: 300, maxMessageBytes: 200 });
  const big = batch(40);
  const middling = batch(20);
  assert.ok(big.bytes.length > 300 && middling.bytes.length > 200 && middling.bytes.length <= 300);
  appendAll(log, [batch(1)]);
  const refusedWith = (): number | undefined => {
    const appended = log.append(big.bytes, big.header, Date.now());
    return appended.kind === 'refused' ? appended.errorCode : undefined;
  };
  assert.equal(refusedWith(), ErrorCode.MESSAGE_TOO_LARGE);
  log.configure({ segmentBytes: 300 });
  assert.equal(refusedWith(), ErrorCode.RECORD_LIST_TOO_LARGE);
  appendAll(log, [middling]);
  assert.equal(log.logEndOffset, 21, 'the refused batches took no offsets');
  await log.close();
  assert.deepEqual(
    await logFiles(dir, '.log'),
    [0, 1].map((o) => offsetFileName(o, '.log')),
  );
});

test('segmentMs rolls once the first batch of the active segment is that old', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { segmentMs: 1000 });
  log.append(batch(1, { baseTimestamp: 5000 }).bytes, batch(1, { baseTimestamp: 5000 }).header, 5500);
  const second = batch(1, { baseTimestamp: 5900 });
  log.append(second.bytes, second.header, 6000);
  const third = batch(1, { baseTimestamp: 6001 });
  log.append(third.bytes, third.header, 6001);
  await log.close();
  assert.deepEqual(
    await logFiles(dir, '.log'),
    [0, 2].map((o) => offsetFileName(o, '.log')),
  );
});

test('offsetForTimestamp finds the first batch whose maxTimestamp reaches the target, across segments', async (t) => {
  const dir = await tempDir(t);
  const first = await openLog(t, dir, SMALL);
  const batches = mixedBatches(70);
  appendAll(first, batches);
  await first.whenWritten(first.logEndOffset - 1);
  const expect = (target: number): { offset: number; timestamp: number } | undefined => {
    const hit = batches.map((b) => readBatchHeader(b.bytes)).find((h) => h.maxTimestamp >= target);
    return hit === undefined ? undefined : { offset: hit.baseOffset, timestamp: hit.maxTimestamp };
  };
  const targets = [0, 1_000_000, 1_000_001, 1_050_000, 1_099_000, 1_100_000, 1_100_001, 2_000_000];
  for (const target of targets) assert.deepEqual(await first.offsetForTimestamp(target), expect(target), `live, ${target}`);
  await first.close();
  const log = await openLog(t, dir, { ...SMALL, tailCacheBytes: 0 });
  for (const target of targets) assert.deepEqual(await log.offsetForTimestamp(target), expect(target), `reopened, ${target}`);
});

test('whenWritten resolves in order and only once the batch is readable', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir);
  const order: number[] = [];
  const waits = [batch(2), batch(3), batch(1)].map((b) => {
    const base = written(log.append(b.bytes, b.header, Date.now()));
    return log.whenWritten(base).then(() => {
      order.push(base);
      assert.ok(log.highWatermark > base);
    });
  });
  assert.equal(log.highWatermark, 0);
  await Promise.all(waits);
  assert.deepEqual(order, [0, 2, 5]);
  await assert.rejects(log.whenWritten(6), RangeError);
});

test('a write error fails the partition: pending and later appends are refused; a reopen has what was written', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { segmentBytes: 500 });
  const before = batch(2);
  appendAll(log, [before]);
  await log.whenWritten(1);
  // The next segment's file name is taken by a directory, so the roll's file cannot be created.
  await mkdir(join(dir, offsetFileName(2, '.log')));
  const doomed = batch(40);
  log.append(doomed.bytes, doomed.header, Date.now());
  await assert.rejects(log.whenWritten(2), /failed/);
  assert.throws(() => log.append(batch(1).bytes, batch(1).header, Date.now()), /failed/);
  assert.equal(log.highWatermark, 2);
  await log.close();

  await rm(join(dir, offsetFileName(2, '.log')), { recursive: true });
  const reopened = await openLog(t, dir);
  assert.equal(reopened.logEndOffset, 2);
  assert.deepEqual(await readAll(reopened), [before.bytes]);
});

test('append copies the batch: the caller may reuse its memory at once, before the write, and the log still holds the batch', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { tailCacheBytes: 0 });
  const batches = Array.from({ length: 20 }, (_, i) => batch(1 + (i % 5), {}, `reused-${i}-`));
  // One request buffer, filled and handed over again and again in one turn, as a connection reuses its memory.
  const request = Buffer.alloc(Math.max(...batches.map((b) => b.bytes.length)));
  const expected: Buffer[] = [];
  for (const b of batches) {
    b.bytes.copy(request);
    const bytes = request.subarray(0, b.bytes.length);
    log.append(bytes, b.header, Date.now());
    expected.push(Buffer.from(bytes));
  }
  request.fill(0xee);
  await log.whenWritten(log.logEndOffset - 1);
  await log.close();
  const reopened = await openLog(t, dir, { tailCacheBytes: 0 });
  assert.deepEqual(await readAll(reopened), expected);
});
