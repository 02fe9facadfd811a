/**
 * The producer decision inside a real partition log, against a small model of Kafka's producer
 * append rules (ProducerAppendInfo): random interleavings of transactional and plain batches,
 * retries, gaps and zombies, markers, epoch bumps, and restarts, clean or crashed, after which the
 * log rebuilds its producer state by replaying its batches through the same decision.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decide,
  epochBump,
  UNCHECKED,
  type CoordinatorView,
  type PartitionProducer,
  type ProducerBatch,
  type RefusalKind,
} from '../src/idempotence/producer-decision.js';
import type { Appended, PartitionLog } from '../src/log/partition-log.js';
import { markerBatch, readBatchHeader, type Marker } from '../src/protocol/record-batch.js';
import { batch, crashImage, openLog, tempDir } from './helpers/log.js';

const PRODUCERS = [7n, 8n];
const SMALL = { segmentBytes: 700, indexIntervalBytes: 100 };

type Step =
  | { kind: 'data'; producer: number; transactional: boolean; seq: 'next' | 'retry' | 'gap' | 'zero'; zombie: boolean; count: number }
  | { kind: 'marker'; producer: number; marker: Marker }
  | { kind: 'bump'; producer: number }
  | { kind: 'restart'; crash: boolean };

const producer = fc.integer({ min: 0, max: PRODUCERS.length - 1 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('data' as const),
      producer,
      transactional: fc.boolean(),
      seq: fc.constantFrom('next' as const, 'next' as const, 'retry' as const, 'gap' as const, 'zero' as const),
      zombie: fc.constantFrom(false, false, false, true),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('marker' as const), producer, marker: fc.constantFrom<Marker>('commit', 'abort') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bump' as const), producer }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), crash: fc.boolean() }) },
);

/** Kafka's rules for one producer on one partition, told plainly. */
interface ModelProducer {
  epoch: number;
  /** The last five accepted batches: [first seq, last seq, base offset]. */
  batches: [number, number, number][];
  /** The first offset of its open transaction. */
  txnFirst: number | undefined;
}

type Outcome = { kind: 'append' | 'duplicate'; baseOffset: number } | { kind: RefusalKind };

class Model {
  logEnd = 0;
  readonly producers = new Map<bigint, ModelProducer>();
  readonly aborted: { producerId: bigint; firstOffset: number; lastOffset: number }[] = [];
  /** The newest epoch InitProducerId handed each producer. */
  readonly newest = new Map<bigint, number>();

  data(id: bigint, epoch: number, first: number, count: number, transactional: boolean): Outcome {
    const p = this.producers.get(id);
    const last = first + count - 1;
    if (epoch < (this.newest.get(id) ?? -1)) return { kind: 'fenced' };
    if (p !== undefined && epoch < p.epoch) return { kind: 'fenced' };
    if (p !== undefined && epoch === p.epoch) {
      const dup = p.batches.find(([f, l]) => f === first && l === last);
      if (dup !== undefined) return { kind: 'duplicate', baseOffset: dup[2] };
      const newest = p.batches.at(-1);
      if (first !== (newest === undefined ? 0 : newest[1] + 1)) return { kind: 'out_of_order' };
    } else if (first !== 0) return { kind: 'out_of_order' };
    if (!transactional && p?.txnFirst !== undefined) return { kind: 'invalid_txn_state' };
    const base = this.logEnd;
    const kept = p !== undefined && p.epoch === epoch ? p.batches.slice(-4) : [];
    const txnFirst = p?.txnFirst ?? (transactional ? base : undefined);
    this.producers.set(id, { epoch, batches: [...kept, [first, last, base]], txnFirst });
    this.logEnd += count;
    return { kind: 'append', baseOffset: base };
  }

  marker(id: bigint, epoch: number, marker: Marker): Outcome {
    const p = this.producers.get(id);
    if (p !== undefined && epoch < p.epoch) return { kind: 'fenced' };
    const base = this.logEnd++;
    if (p?.txnFirst !== undefined && marker === 'abort') this.aborted.push({ producerId: id, firstOffset: p.txnFirst, lastOffset: base });
    this.producers.set(id, { epoch, batches: p !== undefined && p.epoch === epoch ? p.batches : [], txnFirst: undefined });
    return { kind: 'append', baseOffset: base };
  }
}

/** A producer client: its epoch, its next sequence, and its last batch, which it may retry. */
interface Client {
  epoch: number;
  next: number;
  last: { first: number; count: number; transactional: boolean } | undefined;
}

/** The log's answer as plain data: an accepted decision also carries the next state, which `agree` checks. */
function outcomeOf(appended: Appended): Outcome {
  if (appended.kind !== 'refused') return { kind: appended.kind, baseOffset: appended.baseOffset };
  assert.ok(appended.verdict !== undefined, `refused by the producer decision, not for ${appended.message}`);
  return { kind: appended.verdict };
}

function agree(log: PartitionLog, model: Model, when: string): void {
  assert.equal(log.logEndOffset, model.logEnd, `log end ${when}`);
  for (const id of PRODUCERS) {
    const p = model.producers.get(id);
    const state = log.producerState(id)?.state;
    const expected = p && {
      epoch: p.epoch,
      window: p.batches.map(([firstSeq, lastSeq, baseOffset]) => ({ firstSeq, lastSeq, baseOffset })),
      txnStart: p.txnFirst ?? -1,
    };
    assert.deepEqual(state, expected, `producer ${id} ${when}`);
    assert.equal(log.openTxnStart(id), p?.txnFirst, `producer ${id}'s open transaction ${when}`);
  }
  assert.deepEqual(log.abortedTxns(0, log.logEndOffset), model.aborted, `aborted transactions ${when}`);
}

test('appends follow Kafka’s producer append rules, across epoch bumps, markers and restarts', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 40 }), async (steps) => {
      let dir = await tempDir(t);
      let log = await openLog(t, dir, SMALL);
      const model = new Model();
      const clients = new Map<bigint, Client>(PRODUCERS.map((id) => [id, { epoch: 0, next: 0, last: undefined }]));
      for (const [i, step] of steps.entries()) {
        const when = `after step ${i} (${JSON.stringify(step)})`;
        if (step.kind === 'restart') {
          await log.whenWritten(log.logEndOffset - 1);
          if (step.crash) {
            dir = await crashImage(dir, t);
          } else {
            await log.close();
          }
          log = await openLog(t, dir, SMALL);
          agree(log, model, when);
          continue;
        }
        const id = PRODUCERS[step.producer]!;
        const client = clients.get(id)!;
        if (step.kind === 'bump') {
          // InitProducerId: the next epoch, a new numbering.
          client.epoch++;
          client.next = 0;
          client.last = undefined;
          model.newest.set(id, client.epoch);
          continue;
        }
        const context = { newestEpoch: model.newest.get(id) ?? -1, txn: undefined };
        if (step.kind === 'marker') {
          const m = markerBatch(id, client.epoch, step.marker, 0, Date.now());
          assert.deepEqual(outcomeOf(log.append(m, readBatchHeader(m), Date.now(), UNCHECKED, step.marker)), model.marker(id, client.epoch, step.marker), when);
          continue;
        }
        const epoch = step.zombie && client.epoch > 0 ? client.epoch - 1 : client.epoch;
        const retry = step.seq === 'retry' ? client.last : undefined;
        const first = retry?.first ?? (step.seq === 'gap' ? client.next + 2 : step.seq === 'zero' ? 0 : client.next);
        const count = retry?.count ?? step.count;
        const transactional = retry?.transactional ?? step.transactional;
        const b = batch(count, { producerId: id, producerEpoch: epoch, baseSequence: first, transactional }, `p${id}-${first}-`);
        const outcome = outcomeOf(log.append(b.bytes, b.header, Date.now(), context));
        assert.deepEqual(outcome, model.data(id, epoch, first, count, transactional), when);
        if (outcome.kind === 'append' && epoch === client.epoch) {
          client.next = first + count;
          client.last = { first, count, transactional };
        }
        agree(log, model, when);
      }
      await log.whenWritten(log.logEndOffset - 1);
      const reopened = await openLog(t, await crashImage(dir, t), SMALL);
      agree(reopened, model, 'after the last crash');
    }),
    { numRuns: 40 },
  );
});

/** A transactional batch of producer epoch 3, the decision's input. */
const TXN_BATCH: ProducerBatch = { epoch: 3, firstSeq: 0, count: 1, transactional: true, marker: false };

test('a transactional batch goes only into its producer’s open transaction at its coordinator, with the errors Kafka’s verification gives', () => {
  const at = (txn: CoordinatorView): string => decide(undefined, TXN_BATCH, 0, { newestEpoch: -1, txn }).kind;
  assert.equal(at({ epoch: -1, partitionAdded: false }), 'unknown_producer_id');
  assert.equal(at({ epoch: 4, partitionAdded: true }), 'fenced');
  assert.equal(at({ epoch: 3, partitionAdded: false }), 'invalid_txn_state');
  assert.equal(at({ epoch: 3, partitionAdded: true }), 'append');
});

test('recovery’s replay takes what the log holds, whatever a client append would be answered', () => {
  const open: PartitionProducer = { epoch: 3, window: [{ firstSeq: 0, lastSeq: 0, baseOffset: 0 }], txnStart: 0 };
  const plain: ProducerBatch = { ...TXN_BATCH, firstSeq: 5, transactional: false };
  assert.equal(decide(open, plain, 9, UNCHECKED).kind, 'out_of_order');
  const replayed = decide(open, plain, 9, 'replay');
  assert.deepEqual(replayed.kind === 'append' && replayed.next, {
    epoch: 3,
    window: [
      { firstSeq: 0, lastSeq: 0, baseOffset: 0 },
      { firstSeq: 5, lastSeq: 5, baseOffset: 9 },
    ],
    txnStart: 0,
  });
});

test('InitProducerId bumps a named epoch once, answers a retry of the bump the same, and fences any other', () => {
  assert.deepEqual(epochBump(-1, 0), { kind: 'bump', epoch: 1 });
  assert.deepEqual(epochBump(4, 4), { kind: 'bump', epoch: 5 });
  assert.deepEqual(epochBump(4, 3), { kind: 'again', epoch: 4 });
  assert.deepEqual(epochBump(4, 2), { kind: 'fenced' });
  assert.deepEqual(epochBump(4, 5), { kind: 'fenced' });
  assert.deepEqual(epochBump(-1, 32767), { kind: 'new_id' });
});
