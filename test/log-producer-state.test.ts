import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { check } from '../src/idempotence/rules.js';
import type { PartitionLog } from '../src/log/partition-log.js';
import { ProducerStates } from '../src/log/producer-states.js';
import { crc32c } from '../src/protocol/crc32c.js';
import { appendAll, batch, crashImage, openLog, producerBatches, producerView, tempDir, type TestBatch } from './helpers/log.js';
import { until } from './helpers/until.js';

const SMALL = { segmentBytes: 1200, indexIntervalBytes: 200 };

/** Producers 1..4 taking turns; producer 4 restarts with a new epoch half way; plain batches mixed in. */
function traffic(): TestBatch[] {
  const out: TestBatch[] = [];
  const seq = new Map<bigint, number>();
  for (let round = 0; round < 30; round++) {
    for (const id of [1n, 2n, 3n, 4n]) {
      const epoch = id === 4n && round >= 15 ? 1 : 0;
      if (id === 4n && round === 15) seq.set(id, 0);
      const count = 1 + ((round + Number(id)) % 3);
      const first = seq.get(id) ?? 0;
      out.push(producerBatches(id, [count], { producerEpoch: epoch, baseTimestamp: 10_000 + round }, first)[0]!);
      seq.set(id, first + count);
    }
    if (round % 5 === 0) out.push(batch(2));
  }
  return out;
}

async function closedLog(t: TestContext, batches: readonly TestBatch[]): Promise<{ dir: string; state: unknown[]; log: PartitionLog }> {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, SMALL);
  appendAll(log, batches);
  const state = producerView(log);
  await log.close();
  return { dir, state, log };
}

async function snapshots(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith('.snapshot')).sort();
}

async function flipByte(path: string, at: number): Promise<void> {
  const bytes = await readFile(path);
  bytes[at] = bytes[at]! ^ 0x01;
  await writeFile(path, bytes);
}

test('each producer keeps its epoch, all five window entries and lastTimestamp across a reopen', async (t) => {
  const batches = traffic();
  const { dir, state } = await closedLog(t, batches);
  const log = await openLog(t, dir, SMALL);
  assert.deepEqual(producerView(log), state);
  const p1 = log.producerState(1n)!;
  assert.equal(p1.state.window.length, 5);
  assert.equal(p1.lastTimestamp, 10_029);
  assert.equal(log.producerState(4n)!.state.epoch, 1);

  // The oldest remembered batch is still answered as a duplicate with its first offset; one older is not.
  const mine = batches.filter((b) => b.header.producerId === 1n);
  const oldest = mine.at(-5)!.header;
  const verdict = check(p1.state, { epoch: 0, firstSeq: oldest.baseSequence, count: oldest.recordCount });
  assert.deepEqual(verdict, { kind: 'duplicate', baseOffset: p1.state.window[0]!.baseOffset });
  const older = mine.at(-6)!.header;
  assert.deepEqual(check(p1.state, { epoch: 0, firstSeq: older.baseSequence, count: older.recordCount }), { kind: 'out_of_order' });
});

test('a corrupt newest snapshot falls back to an older one and gives identical state', async (t) => {
  const { dir, state } = await closedLog(t, traffic());
  const stored = await snapshots(dir);
  assert.ok(stored.length >= 2, `several snapshots, got ${stored.length}`);
  assert.ok(stored.length <= 3, 'only the newest few are kept');
  await flipByte(join(dir, stored.at(-1)!), 30);

  const log = await openLog(t, dir, SMALL);
  assert.equal(log.recovery.snapshotOffset, Number(stored.at(-2)!.slice(0, 20)));
  assert.ok(log.recovery.replayedBatches > 0);
  assert.deepEqual(producerView(log), state);
});

test('with every snapshot damaged a full replay of the log gives identical state', async (t) => {
  const { dir, state } = await closedLog(t, traffic());
  for (const name of await snapshots(dir)) await writeFile(join(dir, name), 'not a snapshot');
  const log = await openLog(t, dir, SMALL);
  assert.equal(log.recovery.snapshotOffset, undefined);
  assert.deepEqual(producerView(log), state);
  await log.close();
  // The replay's result was stored: the next open needs no replay.
  const again = await openLog(t, dir, SMALL);
  assert.equal(again.recovery.replayedBatches, 0);
  assert.deepEqual(producerView(again), state);
});

test('after an unclean stop with a damaged snapshot the replay still gives identical state', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, SMALL);
  appendAll(log, traffic());
  await log.whenWritten(log.logEndOffset - 1);
  // Snapshots are written in the background after a roll: the crash comes once one is there.
  await until(async () => (await snapshots(dir)).length > 0, 'a snapshot is written');
  const image = await crashImage(dir, t);
  await flipByte(join(image, (await snapshots(image)).at(-1)!), 5);
  const recovered = await openLog(t, image, SMALL);
  assert.deepEqual(producerView(recovered), producerView(log));
});

test('a snapshot of the first format, without write times, loads whole; its producers count as written at the load', () => {
  const states = new ProducerStates();
  let offset = 0;
  for (const b of traffic()) {
    states.replay(b.header, offset, 5_000);
    offset += b.header.recordCount;
  }
  const current = states.encode(42);
  // The first format: version 1, no writtenAt nor open transaction (16 bytes after each
  // producer's lastTimestamp), and no aborted transactions after the producers.
  const parts = [current.subarray(0, 18)];
  let pos = 18;
  for (let i = 0; i < current.readUInt32BE(14); i++) {
    const windowLength = current.readUInt8(pos + 34);
    parts.push(current.subarray(pos, pos + 18), current.subarray(pos + 34, pos + 35 + windowLength * 16));
    pos += 35 + windowLength * 16;
  }
  const v1 = Buffer.concat(parts);
  v1.writeUInt16BE(1, 4);
  v1.writeUInt32BE(crc32c(v1.subarray(4)), 0);
  const loaded = ProducerStates.decode(v1, 9_000)!;
  assert.equal(loaded.offset, 42);
  const view = (s: ProducerStates, writtenAt: number) => [...s.entries()].map(([id, e]) => [id, e.state, e.lastTimestamp, e.writtenAt === writtenAt]);
  assert.deepEqual(view(loaded.states, 9_000), view(states, 5_000));
  assert.deepEqual(view(ProducerStates.decode(current, 9_000)!.states, 5_000), view(states, 5_000), 'the current format keeps write times');
});

test('a log found shorter than a producer snapshot was taken at says that records were lost', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir);
  appendAll(log, producerBatches(7n, [2, 3]));
  await log.close();
  // What a machine crash with the writes still in memory leaves: the file, empty, and the snapshot.
  await writeFile(join(dir, '00000000000000000000.log'), '');
  const warnings: string[] = [];
  const reopened = await openLog(t, dir, { logger: (msg) => warnings.push(msg) });
  assert.equal(reopened.logEndOffset, 0);
  assert.ok(warnings.includes('the log ends before a producer snapshot taken at a later offset: records were lost'), warnings.join('\n'));
  assert.equal(reopened.producerState(7n), undefined, 'nothing is remembered of batches that are gone');
});
