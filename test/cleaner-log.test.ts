import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Storage, type StorageOptions } from '../src/log/storage.js';
import { DEFAULT_CONFIG } from '../src/settings/settings.js';
import type { PartitionLog } from '../src/log/partition-log.js';
import { offsetFileName, parseOffsetFileName } from '../src/log/segment.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { fill, stored, type Written } from './helpers/compacted-log.js';
import { batchesIn, closeAtEnd, producerView, tempDir } from './helpers/log.js';

const DAY = 24 * 3600 * 1000;
/** Small segments, so that a few hundred batches make many; a cleaner that runs only when told. */
const OPTIONS: StorageOptions = { topicDefaults: { ...DEFAULT_CONFIG, segmentBytes: 2048 }, cleaner: { dedupeBufferBytes: 1 << 20, backoffMs: 3_600_000 } };

/** What cleaning below `cleanedTo` must leave: each key's latest record there (its tombstone too, unless `dropTombstones`), and everything after. */
function expected(written: readonly Written[], cleanedTo: number, dropTombstones: boolean): number[] {
  const latest = new Map<string, Written>();
  for (const w of written) if (w.offset < cleanedTo) latest.set(w.key, w);
  const below = [...latest.values()].filter((w) => !(dropTombstones && w.value === null)).map((w) => w.offset);
  return [...below, ...written.filter((w) => w.offset >= cleanedTo).map((w) => w.offset)].sort((a, b) => a - b);
}

async function compactedLog(t: TestContext, dir: string, configs: Record<string, string> = {}): Promise<{ storage: Storage; log: PartitionLog }> {
  const storage = closeAtEnd(t, await Storage.open(dir, OPTIONS));
  await storage.createTopic('table', 1, { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0.01', ...configs });
  return { storage, log: storage.partition('table', 0)! };
}

test('cleaning keeps the latest record of each key at its offset, tombstones until delete.retention.ms, and reads go across the gaps', async (t) => {
  const dir = await tempDir(t);
  const { storage, log } = await compactedLog(t, dir);
  const written = await fill(log, 300, 1);
  const done = await storage.cleaner!.cleanOnce(Date.now());
  assert.ok(done !== undefined && done.segmentsSwapped > 0, 'a cleaning ran');
  const after = await stored(log);
  assert.deepEqual([...after.keys()], expected(written, done.cleanedTo, false));
  for (const [offset, record] of after) assert.deepEqual(record, written[offset], `the record at ${offset} is the one written there`);

  // A consumer at any offset, a gap's too, gets the first batch holding a record at or after it.
  const kept = [...after.keys()];
  for (let offset = 0; offset < log.highWatermark; offset += 7) {
    const [first] = batchesIn(await log.read(offset, 1));
    const header = readBatchHeader(first!);
    assert.ok(header.baseOffset + header.lastOffsetDelta >= offset, `a read at ${offset} answers a batch reaching it`);
    const next = kept.find((o) => o >= offset)!;
    assert.ok(header.baseOffset <= next, `a read at ${offset} answers from the batch before ${next}`);
  }

  // After a restart the log is as clean as it was: only what is written after it makes it dirty.
  const { storage: later, log: again } = await reopen(t, storage, dir);
  assert.equal(await later.cleaner!.cleanOnce(Date.now()), undefined, 'nothing to clean after the restart');
  // Cleaned again a day and more later: the tombstones go, the rest stays.
  written.push(...(await fill(again, 60, 4)));
  const second = await later.cleaner!.cleanOnce(Date.now() + DAY + 1000);
  assert.ok(second !== undefined && second.cleanedTo > done.cleanedTo, 'what was written since is cleaned');
  assert.deepEqual([...(await stored(again)).keys()], expected(written, second.cleanedTo, true));
});

async function reopen(t: TestContext, storage: Storage, dir: string): Promise<{ storage: Storage; log: PartitionLog }> {
  await storage.close();
  const reopened = closeAtEnd(t, await Storage.open(dir, OPTIONS));
  return { storage: reopened, log: reopened.partition('table', 0)! };
}

test('producer state rebuilt from a compacted log, without snapshots, is what it was', async (t) => {
  const dir = await tempDir(t);
  const { storage, log } = await compactedLog(t, dir, { 'delete.retention.ms': '0' });
  await fill(log, 400, 2);
  const producers = producerView(log);
  const done = await storage.cleaner!.cleanOnce(Date.now() + 1000);
  assert.ok(done !== undefined && done.segmentsSwapped > 0);
  const cleaned = await stored(log);
  await storage.close();
  const partition = join(dir, 'table-0');
  for (const name of await readdir(partition)) if (name.endsWith('.snapshot')) await rm(join(partition, name));
  const reopened = closeAtEnd(t, await Storage.open(dir, OPTIONS));
  const log2 = reopened.partition('table', 0)!;
  assert.ok(log2.recovery.replayedBatches > 0, 'producer state was replayed from the log');
  assert.deepEqual(producerView(log2), producers);
  assert.deepEqual(await stored(log2), cleaned);
});

test('a stop at any step of a swap leaves the old segments or the cleaned one, whole', async (t) => {
  const dir = await tempDir(t);
  const { storage, log } = await compactedLog(t, dir);
  await fill(log, 120, 3);
  const before = await stored(log);
  await storage.close();
  const partition = join(dir, 'table-0');
  const files = async (d: string): Promise<Map<string, Buffer>> =>
    new Map(await Promise.all((await readdir(d)).map(async (n) => [n, await readFile(join(d, n))] as const)));
  const old = await files(partition);

  // The cleaned version, made by the cleaner on a copy.
  const copy = await tempDir(t);
  await cp(dir, copy, { recursive: true });
  const cleaner = closeAtEnd(t, await Storage.open(copy, OPTIONS));
  const done = await cleaner.cleaner!.cleanOnce(Date.now());
  assert.ok(done !== undefined && done.segmentsSwapped > 0);
  const after = await stored(cleaner.partition('table', 0)!);
  assert.ok(after.size < before.size);
  const base = (await readdir(partition)).flatMap((n) => parseOffsetFileName(n, '.log') ?? []).sort((a, b) => a - b)[0]!;
  await cleaner.close();
  const fresh = await files(join(copy, 'table-0'));
  const [log0, index0] = [offsetFileName(base, '.log'), offsetFileName(base, '.index')];

  // The first swap (of the first few segments, cleaned into one), stopped after each step: the files as the stop leaves them.
  // The segments merged into the first: their files are deleted before the swap takes its name.
  const merged = Object.fromEntries(
    [...old.keys()].filter((n) => !fresh.has(n) && (n.endsWith('.log') || n.endsWith('.index'))).map((n) => [n, undefined] as const),
  );
  const steps: [string, Record<string, Buffer | undefined>][] = [
    ['cleaned files written', { [log0 + '.cleaned']: fresh.get(log0), [index0 + '.cleaned']: fresh.get(index0) }],
    ['index renamed to .swap', { [index0 + '.swap']: fresh.get(index0) }],
    ['log renamed to .swap', { [index0 + '.swap']: fresh.get(index0), [log0 + '.swap']: fresh.get(log0) }],
    ['merged segments deleted', { [index0 + '.swap']: fresh.get(index0), [log0 + '.swap']: fresh.get(log0), ...merged }],
    ['index swapped in', { [index0]: fresh.get(index0), [log0 + '.swap']: fresh.get(log0), ...merged }],
    ['log swapped in', { [index0]: fresh.get(index0), [log0]: fresh.get(log0), ...merged }],
  ];
  assert.ok(Object.keys(merged).length > 0, 'the first swap replaces several segments');
  for (const [i, [step, changes]] of steps.entries()) {
    const image = await tempDir(t);
    await cp(dir, image, { recursive: true });
    for (const [name, bytes] of Object.entries(changes)) {
      if (bytes === undefined) await rm(join(image, 'table-0', name));
      else await writeFile(join(image, 'table-0', name), bytes);
    }
    const reopened = closeAtEnd(t, await Storage.open(image, OPTIONS));
    const got = await stored(reopened.partition('table', 0)!);
    // Whole: the segments the first swap replaces as they were, or as cleaned, the rest as it was.
    const replacedEnd = secondBase(fresh);
    const swapped = (m: Map<number, Written>): Written[] => [...m.values()].filter((w) => w.offset < replacedEnd);
    assert.deepEqual(swapped(got), swapped(i < 2 ? before : after), `stopped after: ${step}`);
    assert.deepEqual(
      [...got.values()].filter((w) => w.offset >= replacedEnd),
      [...before.values()].filter((w) => w.offset >= replacedEnd),
    );
    const left = (await readdir(join(image, 'table-0'))).filter((n) => n.endsWith('.cleaned') || n.endsWith('.swap'));
    assert.deepEqual(left, [], `nothing of the swap is left after: ${step}`);
    await reopened.close();
  }
});

/** The base offset of the second segment among a partition's files. */
function secondBase(files: Map<string, Buffer>): number {
  return [...files.keys()].flatMap((n) => parseOffsetFileName(n, '.log') ?? []).sort((a, b) => a - b)[1]!;
}

test('compact,delete: retention deletes old segments, and the cleaner compacts what stays', async (t) => {
  const dir = await tempDir(t);
  const { storage, log } = await compactedLog(t, dir, { 'cleanup.policy': 'compact,delete', 'retention.bytes': '8192' });
  const written = await fill(log, 300, 5);
  await log.enforceRetention(Date.now());
  const start = log.logStartOffset;
  assert.ok(start > 0, 'retention moved the log start');
  const done = await storage.cleaner!.cleanOnce(Date.now());
  assert.ok(done !== undefined && done.segmentsSwapped > 0);
  assert.deepEqual(
    [...(await stored(log)).keys()],
    expected(
      written.filter((w) => w.offset >= start),
      done.cleanedTo,
      false,
    ),
  );
});

test('DeleteRecords to an offset in a gap compaction left: the log start is there, reads begin at the next record kept, and a restart keeps it', async (t) => {
  const dir = await tempDir(t);
  const { storage, log } = await compactedLog(t, dir);
  await fill(log, 300, 6);
  const done = await storage.cleaner!.cleanOnce(Date.now());
  assert.ok(done !== undefined && done.segmentsSwapped > 0);
  const kept = [...(await stored(log)).keys()];
  // An offset no record is kept at, between two that are.
  const gap = kept.findIndex((o, i) => i > 0 && o - kept[i - 1]! > 1);
  const start = kept[gap - 1]! + 1;
  await log.advanceLogStart(start);
  const expected = kept.filter((o) => o >= start);
  assert.equal(log.logStartOffset, start);
  assert.deepEqual([...(await stored(log)).keys()], expected);
  const { log: reopened } = await reopen(t, storage, dir);
  assert.equal(reopened.logStartOffset, start);
  assert.deepEqual([...(await stored(reopened)).keys()], expected);
});

/** Files the process has open. */
async function openFiles(): Promise<number> {
  return (await readdir('/proc/self/fd')).length;
}

test('a cleaning that replaces a hundred and more small segments keeps none of their files open', async (t) => {
  const dir = await tempDir(t);
  const { storage } = await compactedLog(t, dir);
  await fill(storage.partition('table', 0)!, 3000, 7);
  // Reopened, so that no segment is open for a read.
  const { storage: reopened, log } = await reopen(t, storage, dir);
  const segments = log.cleanable().segments.length;
  const before = await openFiles();
  const done = await reopened.cleaner!.cleanOnce(Date.now());
  assert.ok(done !== undefined && segments > 100 && log.cleanable().segments.length < segments / 10, `${segments} segments cleaned into few`);
  const after = await openFiles();
  assert.ok(after - before < 20, `${after - before} more files open after the cleaning`);
});
