import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, open, readdir, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogOptions } from '../src/log/options.js';
import { LogDamageError } from '../src/log/log-damage.js';
import { readRecoveryPoint } from '../src/log/partition-files.js';
import type { PartitionLog } from '../src/log/partition-log.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import {
  appendAll,
  batchesIn,
  crashImage,
  openLog,
  producerBatches,
  producerView,
  readAll,
  tempDir,
  written as appendedAt,
  type TestBatch,
} from './helpers/log.js';

const SMALL = { segmentBytes: 1500, indexIntervalBytes: 200 };

/** Three producers taking turns, with batches of 1..4 records. */
function traffic(rounds: number): TestBatch[] {
  const perProducer = [1n, 2n, 3n].map((id) =>
    producerBatches(
      id,
      Array.from({ length: rounds }, (_, i) => 1 + ((i + Number(id)) % 4)),
      { baseTimestamp: 1_000 * Number(id) },
    ),
  );
  return Array.from({ length: rounds }, (_, i) => perProducer.map((batches) => batches[i]!)).flat();
}

/** A log with `batches` all written, and still open. */
async function written(t: TestContext, batches: readonly TestBatch[], options: LogOptions = SMALL): Promise<{ dir: string; log: PartitionLog }> {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, options);
  appendAll(log, batches);
  await log.whenWritten(log.logEndOffset - 1);
  return { dir, log };
}

/** The producer state a log holding exactly `batches` has, built by appending copies to a fresh log. */
async function expectedProducers(t: TestContext, batches: readonly TestBatch[]): Promise<unknown[]> {
  const log = await openLog(t, await tempDir(t));
  appendAll(
    log,
    batches.map((b) => ({ bytes: Buffer.from(b.bytes), header: b.header })),
  );
  return producerView(log);
}

async function activeSegment(dir: string): Promise<string> {
  return join(
    dir,
    (await readdir(dir))
      .filter((n) => n.endsWith('.log'))
      .sort()
      .at(-1)!,
  );
}

/** How many leading batches end within `bytes` of the active segment, given its base offset. */
function survivors(batches: readonly TestBatch[], activeBase: number, bytes: number): number {
  let position = 0;
  let count = batches.findIndex((b) => readBatchHeader(b.bytes).baseOffset === activeBase);
  while (count < batches.length && position + batches[count]!.bytes.length <= bytes) position += batches[count++]!.bytes.length;
  return count;
}

test('a clean close leaves a marker: the next open scans and replays nothing and has everything', async (t) => {
  const batches = traffic(40);
  const { dir, log } = await written(t, batches);
  const state = producerView(log);
  const end = log.logEndOffset;
  await log.close();

  const reopened = await openLog(t, dir, SMALL);
  assert.deepEqual(reopened.recovery, { scannedBytes: 0, truncatedBytes: 0, snapshotOffset: end, replayedBatches: 0 });
  assert.equal(reopened.logEndOffset, end);
  assert.deepEqual(producerView(reopened), state);
  assert.deepEqual(
    await readAll(reopened),
    batches.map((b) => b.bytes),
  );
});

test('after an unclean stop every written batch is back and producer state is identical', async (t) => {
  const batches = traffic(40);
  const { dir, log } = await written(t, batches);
  const image = await crashImage(dir, t);

  const recovered = await openLog(t, image, SMALL);
  assert.ok(recovered.recovery.scannedBytes > 0, 'the tail after the recovery point was checked');
  assert.equal(recovered.recovery.truncatedBytes, 0);
  assert.equal(recovered.logEndOffset, log.logEndOffset);
  assert.deepEqual(producerView(recovered), producerView(log));
  assert.deepEqual(
    await readAll(recovered),
    batches.map((b) => b.bytes),
  );

  // Recovery recorded what it checked: crashing again right away scans nothing more.
  const again = await openLog(t, await crashImage(image, t), SMALL);
  assert.equal(again.recovery.scannedBytes, 0);
  assert.equal(again.recovery.replayedBatches, 0);
  assert.deepEqual(producerView(again), producerView(log));
});

for (const chop of [1, 30, 61, 'all but 1 byte of the last batch', 'into the batch before'] as const) {
  test(`a torn tail (${chop} bytes chopped off the active segment) is cut at the last whole batch`, async (t) => {
    const batches = traffic(30);
    const { dir } = await written(t, batches);
    const image = await crashImage(dir, t);
    const path = await activeSegment(image);
    const size = (await stat(path)).size;
    const last = batches.at(-1)!.bytes.length;
    const cut = chop === 'all but 1 byte of the last batch' ? last - 1 : chop === 'into the batch before' ? last + 10 : chop;
    await truncate(path, size - cut);

    const activeBase = Number(path.slice(-24, -4));
    const kept = batches.slice(0, survivors(batches, activeBase, size - cut));
    const recovered = await openLog(t, image, SMALL);
    const end = kept.reduce((n, b) => n + b.header.recordCount, 0);
    assert.equal(recovered.logEndOffset, end);
    assert.ok(recovered.recovery.truncatedBytes > 0);
    assert.deepEqual(
      await readAll(recovered),
      kept.map((b) => b.bytes),
    );
    assert.deepEqual(producerView(recovered), await expectedProducers(t, kept));

    // The log goes on from there, and survives another reopen.
    const next = producerBatches(9n, [2])[0]!;
    assert.equal(appendedAt(recovered.append(next.bytes, next.header, Date.now())), end);
    await recovered.close();
    const reopened = await openLog(t, image, SMALL);
    assert.deepEqual(
      await readAll(reopened),
      [...kept, next].map((b) => b.bytes),
    );
  });
}

test('a flipped byte in a batch after the recovery point cuts the log before that batch', async (t) => {
  const batches = traffic(30);
  const { dir } = await written(t, batches);
  const image = await crashImage(dir, t);
  const path = await activeSegment(image);
  const activeBase = Number(path.slice(-24, -4));
  const first = batches.findIndex((b) => readBatchHeader(b.bytes).baseOffset === activeBase);
  assert.ok(first >= 0 && batches.length - first >= 3, 'the active segment holds a few batches');
  const victim = first + 1;
  const position = batches.slice(first, victim).reduce((n, b) => n + b.bytes.length, 0);
  const file = await open(path, 'r+');
  const byte = Buffer.alloc(1);
  await file.read(byte, 0, 1, position + 70);
  byte[0] = byte[0]! ^ 0x40;
  await file.write(byte, 0, 1, position + 70);
  await file.close();

  const recovered = await openLog(t, image, SMALL);
  const kept = batches.slice(0, victim);
  assert.equal(
    recovered.logEndOffset,
    kept.reduce((n, b) => n + b.header.recordCount, 0),
  );
  assert.deepEqual(
    await readAll(recovered),
    kept.map((b) => b.bytes),
  );
  assert.deepEqual(producerView(recovered), await expectedProducers(t, kept));
});

test('garbage after the last batch is cut and the log keeps every batch', async (t) => {
  const batches = traffic(10);
  const { dir, log } = await written(t, batches);
  const image = await crashImage(dir, t);
  await appendFile(await activeSegment(image), Buffer.alloc(100));
  const recovered = await openLog(t, image, SMALL);
  assert.equal(recovered.recovery.truncatedBytes, 100);
  assert.equal(recovered.logEndOffset, log.logEndOffset);
  assert.deepEqual(producerView(recovered), producerView(log));
});

test('without a recovery point every segment is checked and nothing is lost', async (t) => {
  const batches = traffic(30);
  const { dir, log } = await written(t, batches);
  const image = await crashImage(dir, t);
  await rm(join(image, 'recovery-point'));
  const recovered = await openLog(t, image, SMALL);
  assert.ok(recovered.recovery.scannedBytes >= batches.reduce((n, b) => n + b.bytes.length, 0));
  assert.equal(recovered.logEndOffset, log.logEndOffset);
  assert.deepEqual(
    await readAll(recovered),
    batches.map((b) => b.bytes),
  );
  assert.deepEqual(producerView(recovered), producerView(log));
});

test('a segment lost or cut short by a whole batch while stopped is damage: reads serve the batches before it, fail at it, and serve those after it', async (t) => {
  const batches = traffic(40);
  for (const damage of ['lost', 'cut short'] as const) {
    const { dir, log } = await written(t, batches);
    await log.close();
    const segments = (await readdir(dir)).filter((n) => n.endsWith('.log')).sort();
    assert.ok(segments.length > 4, 'several segments');
    const victim = join(dir, segments[2]!);
    const base = Number(segments[2]!.slice(0, -4));
    const next = Number(segments[3]!.slice(0, -4));
    const inVictim = batches.filter((b) => readBatchHeader(b.bytes).baseOffset >= base && readBatchHeader(b.bytes).baseOffset < next);
    if (damage === 'lost') await rm(victim);
    else await truncate(victim, (await stat(victim)).size - inVictim.at(-1)!.bytes.length);
    const reopened = await openLog(t, dir, SMALL);
    // Lost, the segment takes all of its batches along; cut short, its last one.
    const gone = damage === 'lost' ? inVictim : inVictim.slice(-1);
    const missingFrom = readBatchHeader(gone[0]!.bytes).baseOffset;
    const read: Buffer[] = [];
    for (let offset = reopened.logStartOffset; offset < missingFrom;) {
      for (const b of batchesIn(await reopened.read(offset, 1 << 20))) {
        read.push(Buffer.from(b));
        offset = readBatchHeader(b).baseOffset + readBatchHeader(b).lastOffsetDelta + 1;
      }
    }
    assert.deepEqual(
      read,
      batches.filter((b) => readBatchHeader(b.bytes).baseOffset < missingFrom).map((b) => b.bytes),
      `${damage}: the batches before it`,
    );
    await assert.rejects(reopened.read(missingFrom, 1 << 20), LogDamageError, `${damage}: the missing offsets are damage`);
    const after = batchesIn(await reopened.read(next, 1 << 20));
    assert.deepEqual(after[0], batches.find((b) => readBatchHeader(b.bytes).baseOffset === next)!.bytes, `${damage}: the segment after it`);
  }
});

test('a log that lost its end after a clean close drops the snapshot that covered it', async (t) => {
  const batches = traffic(30);
  const { dir, log } = await written(t, batches);
  await log.close();
  const path = await activeSegment(dir);
  const size = (await stat(path)).size;
  const last = batches.at(-1)!.bytes.length;
  await truncate(path, size - last);

  const recovered = await openLog(t, dir, SMALL);
  const kept = batches.slice(0, -1);
  assert.ok(recovered.recovery.snapshotOffset !== undefined && recovered.recovery.snapshotOffset < log.logEndOffset);
  assert.equal(recovered.logEndOffset, log.logEndOffset - batches.at(-1)!.header.recordCount);
  assert.deepEqual(producerView(recovered), await expectedProducers(t, kept));
});

test('the periodic checkpoint fsyncs in the background and bounds what a restart must scan', async (t) => {
  const batches = traffic(20);
  const options = { ...SMALL, checkpointIntervalMs: 10, flush: { intervalMs: 5 } };
  const { dir, log } = await written(t, batches, options);
  const end = (await stat(await activeSegment(dir))).size;
  for (let i = 0; i < 200 && (await readRecoveryPoint(dir))?.position !== end; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  const recovered = await openLog(t, await crashImage(dir, t), options);
  assert.equal(recovered.recovery.scannedBytes, 0, 'the recovery point was at the end');
  assert.ok(recovered.recovery.replayedBatches > 0, 'producer state still comes from the last snapshot plus a replay');
  assert.deepEqual(producerView(recovered), producerView(log));
  assert.deepEqual(
    await readAll(recovered),
    batches.map((b) => b.bytes),
  );
});
