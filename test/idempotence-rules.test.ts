import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { check, commit, lastSequence, WINDOW_SIZE, type ProducerState, type SequencedBatch, type Verdict } from '../src/idempotence/rules.js';

const MAX_SEQ = 2147483647;

/** One (partition, producer) driven through check → commit, with the partition's log end. */
class Producer {
  state: ProducerState | undefined;
  logEnd = 0;
  send(epoch: number, firstSeq: number, count: number): Verdict {
    const batch: SequencedBatch = { epoch, firstSeq, count };
    const verdict = check(this.state, batch);
    if (verdict.kind === 'append') {
      this.state = commit(this.state, batch, this.logEnd);
      this.logEnd += count;
    }
    return verdict;
  }
}
const ok: Verdict = { kind: 'append' };
const dup = (baseOffset: number): Verdict => ({ kind: 'duplicate', baseOffset });
const outOfOrder: Verdict = { kind: 'out_of_order' };
const fenced: Verdict = { kind: 'fenced' };

test('rule 1: a producer with no state must start at sequence 0', () => {
  assert.deepEqual(new Producer().send(0, 1, 1), outOfOrder);
  assert.deepEqual(new Producer().send(3, 0, 1), ok);
});

test('rule 2: an older epoch is fenced, whatever its sequence', () => {
  const p = new Producer();
  p.send(5, 0, 1);
  assert.deepEqual(p.send(4, 1, 1), fenced);
  assert.deepEqual(p.send(4, 0, 1), fenced);
  assert.equal(p.logEnd, 1);
});

test('rule 3: a newer epoch must start at 0 and clears the window', () => {
  const p = new Producer();
  p.send(0, 0, 3);
  assert.deepEqual(p.send(1, 3, 1), outOfOrder);
  assert.deepEqual(p.send(1, 0, 2), ok);
  assert.deepEqual(p.state?.window, [{ firstSeq: 0, lastSeq: 1, baseOffset: 3 }]);
  assert.equal(p.state?.epoch, 1);
  // The old epoch's batch of the same range is no duplicate any more: it is a zombie.
  assert.deepEqual(p.send(0, 0, 3), fenced);
});

test('rule 4: exact replay is a duplicate answered with the first offset; otherwise the next sequence only', () => {
  const p = new Producer();
  p.send(0, 0, 3);
  p.send(0, 3, 2);
  assert.deepEqual(p.send(0, 3, 2), dup(3));
  assert.deepEqual(p.send(0, 0, 3), dup(0), 'a non-newest window entry is a duplicate too');
  assert.deepEqual(p.send(0, 7, 1), outOfOrder, 'a gap');
  assert.deepEqual(p.send(0, 5, 1), ok);
  assert.equal(p.logEnd, 6);
});

test('mistake: an old sequence that matches no remembered batch is not a duplicate', () => {
  const p = new Producer();
  p.send(0, 0, 3);
  p.send(0, 3, 2);
  assert.deepEqual(p.send(0, 0, 2), outOfOrder, 'same first sequence, other last');
  assert.deepEqual(p.send(0, 1, 2), outOfOrder, 'inside a remembered range');
  assert.deepEqual(p.send(0, 3, 1), outOfOrder);
});

test('mistake: one counter for all partitions — state is per (partition, producer)', () => {
  const p0 = new Producer();
  const p1 = new Producer();
  p0.send(0, 0, 10);
  assert.deepEqual(p1.send(0, 0, 1), ok, 'the same producer starts at 0 on another partition');
  assert.deepEqual(p1.send(0, 10, 1), outOfOrder);
});

test('mistake: appending then rejecting — a refused batch changes nothing', () => {
  const p = new Producer();
  p.send(2, 0, 3);
  const before = p.state;
  for (const [epoch, seq] of [
    [2, 9],
    [1, 3],
    [3, 4],
    [2, 0],
  ] as const) {
    const verdict = p.send(epoch, seq, 1);
    assert.notEqual(verdict.kind, 'append');
    assert.equal(p.state, before);
    assert.equal(p.logEnd, 3);
  }
  assert.deepEqual(p.send(2, 3, 1), ok);
  assert.equal(p.state?.window.at(-1)?.baseOffset, 3);
});

test('mistake: forgetting the wrap — after 2147483647 comes 0, and a batch may straddle it', () => {
  assert.equal(lastSequence(MAX_SEQ, 1), MAX_SEQ);
  assert.equal(lastSequence(MAX_SEQ, 3), 1);
  const p = new Producer();
  p.state = { epoch: 0, window: [{ firstSeq: MAX_SEQ - 5, lastSeq: MAX_SEQ - 2, baseOffset: 0 }] };
  p.logEnd = 4;
  assert.deepEqual(p.send(0, MAX_SEQ - 1, 3), ok, 'straddles: covers 2147483646, 2147483647, 0');
  assert.deepEqual(p.state?.window.at(-1), { firstSeq: MAX_SEQ - 1, lastSeq: 0, baseOffset: 4 });
  assert.deepEqual(p.send(0, MAX_SEQ - 1, 3), dup(4));
  assert.deepEqual(p.send(0, 2, 1), outOfOrder, 'the next is 1, not 2');
  assert.deepEqual(p.send(0, 1, 1), ok);
  const q = new Producer();
  q.state = { epoch: 0, window: [{ firstSeq: MAX_SEQ, lastSeq: MAX_SEQ, baseOffset: 0 }] };
  assert.deepEqual(q.send(0, 0, 1), ok, 'the successor of 2147483647 is 0');
});

test("mistake: a duplicate is answered with the first copy's offset, not a new one", () => {
  const p = new Producer();
  p.send(0, 0, 1);
  p.send(0, 1, 1);
  p.send(0, 2, 1);
  assert.deepEqual(p.send(0, 1, 1), dup(1));
  assert.equal(p.logEnd, 3);
});

test('window: only the last five batches are remembered; a retry of the evicted one is out of order', () => {
  const p = new Producer();
  for (let i = 0; i <= WINDOW_SIZE; i++) assert.deepEqual(p.send(0, i * 2, 2), ok);
  assert.equal(p.state?.window.length, WINDOW_SIZE);
  assert.deepEqual(p.send(0, 0, 2), outOfOrder, 'fell out of the window');
  assert.deepEqual(p.send(0, 2, 2), dup(2), 'the oldest remembered batch');
  assert.deepEqual(p.send(0, 10, 2), dup(10), 'the newest');
});

test("the lesson's worked trace", () => {
  const p = new Producer();
  assert.deepEqual(p.send(0, 0, 3), ok);
  assert.deepEqual(p.send(0, 3, 2), ok);
  assert.deepEqual(p.send(0, 3, 2), dup(3));
  assert.deepEqual(p.send(0, 7, 1), outOfOrder);
  assert.deepEqual(p.send(1, 7, 1), outOfOrder);
  assert.deepEqual(p.send(1, 0, 1), ok);
  assert.equal(p.state?.window[0]?.baseOffset, 5);
  assert.deepEqual(p.send(0, 5, 1), fenced);
});

/**
 * A deliberately naive model: it keeps every accepted batch of every producer on every
 * partition, forever, and recomputes each answer from that history with BigInt arithmetic.
 */
class NaiveBroker {
  private readonly history: { part: number; pid: number; epoch: number; first: number; last: number; base: number }[] = [];
  private readonly logEnds = new Map<number, number>();
  send(part: number, pid: number, epoch: number, first: number, count: number): string {
    const mine = this.history.filter((h) => h.part === part && h.pid === pid);
    const last = Number((BigInt(first) + BigInt(count) - 1n) % 2147483648n);
    const accept = (): string => {
      const base = this.logEnds.get(part) ?? 0;
      this.history.push({ part, pid, epoch, first, last, base });
      this.logEnds.set(part, base + count);
      return `OK ${base}`;
    };
    if (mine.length === 0) return first === 0 ? accept() : 'OUT_OF_ORDER';
    const current = mine[mine.length - 1]!.epoch;
    if (epoch < current) return 'FENCED';
    if (epoch > current) return first === 0 ? accept() : 'OUT_OF_ORDER';
    const recent = mine.filter((h) => h.epoch === current).slice(-WINDOW_SIZE);
    const same = recent.find((h) => h.first === first && h.last === last);
    if (same !== undefined) return `DUPLICATE ${same.base}`;
    const expected = Number((BigInt(recent[recent.length - 1]!.last) + 1n) % 2147483648n);
    return first === expected ? accept() : 'OUT_OF_ORDER';
  }
  /** What a producer that follows the rules would send next, for biasing the generator. */
  next(part: number, pid: number): { epoch: number; seq: number; recent: { first: number; last: number }[] } {
    const mine = this.history.filter((h) => h.part === part && h.pid === pid);
    const newest = mine[mine.length - 1];
    if (newest === undefined) return { epoch: 0, seq: 0, recent: [] };
    return { epoch: newest.epoch, seq: (newest.last + 1) % 2147483648, recent: mine.filter((h) => h.epoch === newest.epoch).slice(-7) };
  }
}

test('property: the rules agree with a naive model of the lesson on any sequence of batches', () => {
  const step = fc.record({
    part: fc.integer({ min: 0, max: 1 }),
    pid: fc.integer({ min: 0, max: 2 }),
    epochShift: fc.constantFrom(0, 0, 0, 0, 1, -1, 2),
    kind: fc.constantFrom('next', 'next', 'next', 'retry', 'retry', 'zero', 'random', 'nearWrap', 'startAtWrap'),
    retryIndex: fc.nat(),
    count: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 2147483647 })),
    random: fc.integer({ min: 0, max: 2147483647 }),
  });
  fc.assert(
    fc.property(fc.array(step, { maxLength: 120 }), (steps) => {
      const model = new NaiveBroker();
      const states = new Map<string, ProducerState>();
      const logEnds = new Map<number, number>();
      for (const s of steps) {
        const hint = model.next(s.part, s.pid);
        const epoch = Math.max(0, hint.epoch + s.epochShift);
        let seq = hint.seq;
        let count = s.count <= 4 ? s.count : (s.count % 7) + 1;
        if (s.kind === 'retry' && hint.recent.length > 0) {
          const r = hint.recent[s.retryIndex % hint.recent.length]!;
          seq = r.first;
          count = Number((BigInt(r.last) - BigInt(r.first) + 2147483648n) % 2147483648n) + 1;
        } else if (s.kind === 'zero') seq = 0;
        else if (s.kind === 'random') seq = s.random;
        else if (s.kind === 'nearWrap') count = 2147483647 - seq + 1 + (s.retryIndex % 3);
        else if (s.kind === 'startAtWrap') seq = 2147483647 - (s.retryIndex % 3);
        count = Math.min(Math.max(count, 1), 2147483647);

        const expected = model.send(s.part, s.pid, epoch, seq, count);
        const key = `${s.part}/${s.pid}`;
        const batch = { epoch, firstSeq: seq, count };
        const verdict = check(states.get(key), batch);
        const logEnd = logEnds.get(s.part) ?? 0;
        let actual: string;
        if (verdict.kind === 'append') {
          states.set(key, commit(states.get(key), batch, logEnd));
          logEnds.set(s.part, logEnd + count);
          actual = `OK ${logEnd}`;
        } else if (verdict.kind === 'duplicate') actual = `DUPLICATE ${verdict.baseOffset}`;
        else actual = verdict.kind === 'fenced' ? 'FENCED' : 'OUT_OF_ORDER';
        assert.equal(actual, expected, JSON.stringify({ step: s, epoch, seq, count }));
      }
    }),
    { numRuns: 400 },
  );
});
