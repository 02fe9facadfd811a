/**
 * A partition log's transactions: the last stable offset, the aborted transactions, and both
 * rebuilt after a clean close, after a crash (from the snapshot and the batches after it), and
 * after retention.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { markerBatch, readBatchHeader, type Marker } from '../src/protocol/record-batch.js';
import type { PartitionLog } from '../src/log/partition-log.js';
import { UNCHECKED } from '../src/idempotence/producer-decision.js';
import { batch, crashImage, openLog, tempDir, written } from './helpers/log.js';

const SMALL = { segmentBytes: 600, indexIntervalBytes: 100 };

/** What a log must answer, told plainly: each producer's open transaction's first offset, and the aborted ones. */
interface Model {
  readonly open: Map<bigint, number>;
  readonly aborted: { producerId: bigint; firstOffset: number; lastOffset: number }[];
}

type Step = { kind: 'data'; producer: number; count: number } | { kind: 'end'; producer: number; marker: Marker } | { kind: 'plain'; count: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('data' as const), producer: fc.integer({ min: 1, max: 3 }), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('end' as const), producer: fc.integer({ min: 1, max: 3 }), marker: fc.constantFrom<Marker>('commit', 'abort') }),
  fc.record({ kind: fc.constant('plain' as const), count: fc.integer({ min: 1, max: 3 }) }),
);

/** Appends the steps to the log and to the model; markers only end open transactions, as the coordinator writes them. */
function play(log: PartitionLog, steps: readonly Step[], model: Model): void {
  const seq = new Map<bigint, number>();
  for (const step of steps) {
    if (step.kind === 'plain') {
      const b = batch(step.count);
      log.append(b.bytes, b.header, Date.now());
      continue;
    }
    const id = BigInt(step.producer);
    if (step.kind === 'data') {
      const b = batch(step.count, { producerId: id, producerEpoch: 0, baseSequence: seq.get(id) ?? 0, transactional: true });
      const offset = written(log.append(b.bytes, b.header, Date.now()));
      seq.set(id, (seq.get(id) ?? 0) + step.count);
      if (!model.open.has(id)) model.open.set(id, offset);
    } else if (model.open.has(id)) {
      const m = markerBatch(id, 0, step.marker, 0, Date.now());
      const offset = written(log.append(m, readBatchHeader(m), Date.now(), UNCHECKED, step.marker));
      if (step.marker === 'abort') model.aborted.push({ producerId: id, firstOffset: model.open.get(id)!, lastOffset: offset });
      model.open.delete(id);
    }
  }
}

function check(log: PartitionLog, model: Model, when: string): void {
  const firstOpen = Math.min(...model.open.values());
  assert.equal(log.lastStableOffset, Math.min(firstOpen, log.highWatermark), `LSO ${when}`);
  assert.deepEqual(log.abortedTxns(0, log.logEndOffset), model.aborted, `aborted transactions ${when}`);
  for (const [id, first] of model.open) assert.equal(log.openTxnStart(id), first, `producer ${id}'s open transaction ${when}`);
  // Only those overlapping the range asked about.
  const mid = Math.floor(log.logEndOffset / 2);
  assert.deepEqual(
    log.abortedTxns(mid, mid + 3),
    model.aborted.filter((a) => a.lastOffset >= mid && a.firstOffset < mid + 3),
    `aborted transactions in [${mid}, ${mid + 3}) ${when}`,
  );
}

test('the last stable offset and aborted transactions follow the log, and come back whole after a close or a crash', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 40 }), async (steps) => {
      const dir = await tempDir(t);
      const log = await openLog(t, dir, SMALL);
      const model: Model = { open: new Map(), aborted: [] };
      play(log, steps, model);
      await log.whenWritten(log.logEndOffset - 1);
      check(log, model, 'while running');
      // A crash: the files as they are, with the snapshots the rolls left and the batches after them replayed.
      const crashed = await openLog(t, await crashImage(dir, t), SMALL);
      check(crashed, model, 'after a crash');
      await crashed.close();
      await log.close();
      check(await openLog(t, dir, SMALL), model, 'after a clean close');
    }),
    { numRuns: 25 },
  );
});

test('aborted transactions wholly below the log start are forgotten, as Kafka deletes them with their segments', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, SMALL);
  const model: Model = { open: new Map(), aborted: [] };
  play(
    log,
    [
      { kind: 'data', producer: 1, count: 2 },
      { kind: 'end', producer: 1, marker: 'abort' },
      { kind: 'data', producer: 2, count: 2 },
      { kind: 'end', producer: 2, marker: 'abort' },
    ],
    model,
  );
  await log.whenWritten(log.logEndOffset - 1);
  await log.advanceLogStart(3);
  await log.enforceRetention(Date.now());
  assert.deepEqual(log.abortedTxns(0, log.logEndOffset), [model.aborted[1]]);
});
