import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ProducerStates } from '../src/log/producer-states.js';
import type { BatchHeader } from '../src/protocol/record-batch.js';

const TRANSACTIONAL = 0x10;
const CONTROL = 0x20;
/** Small ids and ids past 2^53, which are kept by bigint. */
const IDS = [1n, 2n, 3n, 4n, 5n, 6n, 2n ** 60n, 2n ** 60n + 1n];

type Op =
  | { kind: 'batch'; producer: number; count: number; transactional: boolean }
  | { kind: 'marker'; producer: number; abort: boolean }
  | { kind: 'newEpoch'; producer: number }
  | { kind: 'expire'; advanceMs: number }
  | { kind: 'roll' }
  | { kind: 'turn' };

const producer = fc.integer({ min: 0, max: IDS.length - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('batch' as const), producer, count: fc.integer({ min: 1, max: 3 }), transactional: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('marker' as const), producer, abort: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('newEpoch' as const), producer }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), advanceMs: fc.integer({ min: 0, max: 30 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'roll' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'turn' as const }) },
);

/** Everything a snapshot holds, in an order independent of where the states sit. */
function view(states: ProducerStates): unknown {
  const producers = [...states.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, e]) => ({ id, state: e.state, lastTimestamp: e.lastTimestamp, writtenAt: e.writtenAt, txn: states.openTxnStart(id) }));
  return { producers, firstUnstable: states.firstUnstableOffset(), aborted: states.abortedBetween(0, Number.MAX_SAFE_INTEGER) };
}

function header(id: bigint, epoch: number, seq: number, count: number, attributes: number, time: number): BatchHeader {
  return {
    baseOffset: 0,
    size: 0,
    magic: 2,
    attributes,
    lastOffsetDelta: count - 1,
    baseTimestamp: time,
    maxTimestamp: time,
    producerId: id,
    producerEpoch: epoch,
    baseSequence: seq,
    recordCount: count,
  };
}

test('a snapshot holds exactly the state at its offset, whatever is appended or expired while it is encoded', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 80 }), fc.integer({ min: 1, max: 3 }), async (ops, perTurn) => {
      const states = new ProducerStates();
      const epochs = IDS.map(() => 0);
      const seqs = IDS.map(() => 0);
      let offset = 0;
      let now = 1_000;
      const taken: { expected: unknown; offset: number; bytes: Promise<Buffer> }[] = [];
      for (const o of ops) {
        now++;
        if (o.kind === 'batch') {
          const attributes = o.transactional ? TRANSACTIONAL : 0;
          states.replay(header(IDS[o.producer]!, epochs[o.producer]!, seqs[o.producer]!, o.count, attributes, now), offset, now);
          seqs[o.producer]! += o.count;
          offset += o.count;
        } else if (o.kind === 'marker') {
          states.replay(header(IDS[o.producer]!, epochs[o.producer]!, -1, 1, TRANSACTIONAL | CONTROL, now), offset, now, o.abort ? 'abort' : 'commit');
          offset++;
        } else if (o.kind === 'newEpoch') {
          epochs[o.producer]!++;
          seqs[o.producer] = 0;
        } else if (o.kind === 'expire') {
          now += o.advanceMs;
          states.expire(now, 20);
        } else if (o.kind === 'roll') {
          // What the state is now, through a copy no later change can reach.
          const expected = view(ProducerStates.decode(states.encode(offset), 0)!.states);
          assert.deepEqual(expected, view(states), 'a snapshot encoded at once holds the state');
          taken.push({ expected, offset, bytes: states.snapshot(offset, perTurn) });
        } else {
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      for (const snapshot of taken) {
        const decoded = ProducerStates.decode(await snapshot.bytes, 0);
        assert.ok(decoded !== undefined, 'the snapshot is whole and its CRC matches');
        assert.equal(decoded.offset, snapshot.offset);
        assert.deepEqual(view(decoded.states), snapshot.expected);
      }
    }),
    { numRuns: 300 },
  );
});

test('a column that cannot grow (memory refused) leaves the states as they were: the next producer, snapshots and decoding go on', () => {
  const header = (producerId: bigint): BatchHeader => ({
    baseOffset: 0,
    size: 0,
    magic: 2,
    attributes: 0,
    lastOffsetDelta: 0,
    baseTimestamp: 1,
    maxTimestamp: 1,
    producerId,
    producerEpoch: 0,
    baseSequence: 0,
    recordCount: 1,
  });
  const states = new ProducerStates();
  let offset = 0;
  // Up to the columns' first capacity, so that the next producer grows them.
  for (let id = 100n; id < 164n; id++) states.replay(header(id), offset++, 1);
  const RealFloat64Array = globalThis.Float64Array;
  let refuse = true;
  globalThis.Float64Array = new Proxy(RealFloat64Array, {
    construct(target, args: [number]) {
      if (refuse && args[0] > 64) {
        refuse = false;
        throw new RangeError('Array buffer allocation failed');
      }
      return new target(...args);
    },
  });
  try {
    assert.throws(() => states.replay(header(500n), offset, 1), RangeError);
  } finally {
    globalThis.Float64Array = RealFloat64Array;
  }
  states.replay(header(501n), offset++, 1);
  const ids = [...states.entries()].map(([id]) => id);
  assert.equal(ids.length, 65);
  assert.ok(!ids.includes(0n) && !ids.includes(500n) && ids.includes(501n), 'no producer that was never stored');
  const decoded = ProducerStates.decode(states.encode(offset), 1);
  assert.deepEqual([...decoded!.states.entries()].map(([id]) => id).sort(), [...ids].sort());
});
