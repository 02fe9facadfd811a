import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { producerRefusal } from '../src/log/producer-refusals.js';
import { coordinatorRefusal } from '../src/idempotence/producer-decision.js';
import { MAX_EPOCH } from '../src/idempotence/rules.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import {
  addOffsets,
  addPartitions,
  commitOffsets,
  complete,
  endTxn,
  endTxnV2,
  expired,
  fenceAndAbort,
  initProducerId,
  coordinatorView,
  recovered,
  type InitStep,
  type Txn,
  type TxnPartition,
} from '../src/transactions/txn-machine.js';

const MAX_TIMEOUT = 900_000;
const TIMEOUT = 1000;
const PARTITIONS: TxnPartition[] = [
  { topic: 'a', partition: 0 },
  { topic: 'a', partition: 1 },
  { topic: 'b', partition: 0 },
];
const key = (p: TxnPartition): string => `${p.topic}-${p.partition}`;
/** Produce's answer to a transactional batch of (producerId, epoch) to the partition, from the coordinator's side alone. */
function mayWrite(txn: Txn | undefined, producerId: bigint, epoch: number, partition: TxnPartition): number {
  const refused = coordinatorRefusal(coordinatorView(txn, producerId, partition), epoch);
  return refused === undefined ? ErrorCode.NONE : producerRefusal(refused.kind).errorCode;
}

const FENCING = new Set<number>([ErrorCode.PRODUCER_FENCED, ErrorCode.INVALID_PRODUCER_ID_MAPPING, ErrorCode.INVALID_PRODUCER_EPOCH]);

interface Outcome {
  readonly commit: boolean;
  readonly partitions: string[];
  readonly offsets: string[];
}

/**
 * The coordinator around the machine, as the real one drives it: what is stored, a Prepare state's
 * markers written by `finish` (which may be put off, so a crash can fall between), every outcome.
 */
class Driver {
  stored: Txn | undefined;
  now = 0;
  nextId = 1n;
  readonly outcomes: Outcome[] = [];
  private readonly allocate = (): bigint => this.nextId++;

  init(producerId: bigint, epoch: number): InitStep {
    const step = initProducerId(this.stored, { transactionalId: 't', timeoutMs: TIMEOUT, producerId, epoch }, MAX_TIMEOUT, this.now, this.allocate);
    if ('ready' in step) this.stored = step.ready;
    if ('abortFirst' in step) this.stored = step.abortFirst;
    return step;
  }

  /** Writes the markers (and offsets) of a stored Prepare state and completes it. */
  finish(): void {
    const t = this.stored;
    if (t === undefined || (t.state !== 'PrepareCommit' && t.state !== 'PrepareAbort')) return;
    const offsets = t.groups.flatMap((g) => g.offsets.map((o) => `${g.groupId}:${key(o)}=${o.offset}`));
    this.outcomes.push({
      commit: t.state === 'PrepareCommit',
      partitions: t.partitions.map(key).sort(),
      offsets: t.state === 'PrepareCommit' ? offsets.sort() : [],
    });
    this.stored = complete(t, this.now);
  }

  store(step: { error: number } | { txn: Txn }): number {
    if ('error' in step) return step.error;
    this.stored = step.txn;
    return ErrorCode.NONE;
  }
}

/** What a correct coordinator does, told plainly: one producer at a time, the transaction it has open. */
interface Model {
  producer: { id: bigint; epoch: number } | undefined;
  /** Every (id, epoch) handed out, or fenced by a bump. */
  readonly stale: { id: bigint; epoch: number }[];
  open: boolean;
  openedAt: number;
  partitions: Set<string>;
  groups: Set<string>;
  offsets: Map<string, string>;
  /** A decision taken (EndTxn, timeout, restart, a new producer) whose markers are not yet written. */
  pending: boolean;
  /** Transactions v2: the pending decision is the producer's EndTxn, whose answer (the next epoch) it gets once complete. */
  bumping: boolean;
  readonly outcomes: Outcome[];
}

type Command =
  | { kind: 'init'; named: boolean }
  | { kind: 'add'; partitions: number[] }
  | { kind: 'addOffsets'; group: string }
  | { kind: 'offsets'; group: string; partition: number; offset: number }
  | { kind: 'produce'; partition: number }
  | { kind: 'end'; commit: boolean }
  | { kind: 'finish' }
  /** The broker stops and starts `downMs` later. */
  | { kind: 'crash'; downMs: number }
  | { kind: 'wait'; ms: number }
  | { kind: 'zombie'; pick: number; what: 'add' | 'end' | 'produce' | 'offsets' };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('init' as const), named: fc.boolean() }),
  fc.record({ kind: fc.constant('add' as const), partitions: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('addOffsets' as const), group: fc.constantFrom('g1', 'g2') }),
  fc.record({ kind: fc.constant('offsets' as const), group: fc.constantFrom('g1', 'g2'), partition: fc.integer({ min: 0, max: 2 }), offset: fc.nat(50) }),
  fc.record({ kind: fc.constant('produce' as const), partition: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('end' as const), commit: fc.boolean() }),
  fc.constant({ kind: 'finish' as const }),
  fc.record({ kind: fc.constant('crash' as const), downMs: fc.constantFrom(0, 600, 1500) }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(10, 600, 1500) }),
  fc.record({
    kind: fc.constant('zombie' as const),
    pick: fc.nat(),
    what: fc.constantFrom('add' as const, 'end' as const, 'produce' as const, 'offsets' as const),
  }),
);

/** The model's decision to abort the open transaction (markers to follow). */
function abortOpen(m: Model): void {
  m.outcomes.push({ commit: false, partitions: [...m.partitions].sort(), offsets: [] });
  m.open = false;
  m.pending = true;
}

function fenceProducer(m: Model): void {
  if (m.producer !== undefined) m.stale.push(m.producer);
  m.producer = undefined;
}

/** Runs the commands against the machine and the model; `v2`: EndTxn as v5 does it (transactions v2). */
function run(commands: Command[], v2 = false): void {
  const d = new Driver();
  const end = (txn: Txn | undefined, id: bigint, epoch: number, commit: boolean): ReturnType<typeof endTxn> =>
    v2 ? endTxnV2(txn, id, epoch, commit, d.now, () => d.nextId++) : endTxn(txn, id, epoch, commit, d.now);
  const m: Model = {
    producer: undefined,
    stale: [],
    open: false,
    openedAt: 0,
    partitions: new Set(),
    groups: new Set(),
    offsets: new Map(),
    pending: false,
    bumping: false,
    outcomes: [],
  };
  // The model's outcomes are decided when the decision is taken; the driver's when markers are written: compared at each finish.
  let finished = 0;
  const settle = (): void => {
    d.finish();
    if (m.pending) {
      m.pending = false;
      finished++;
    }
    if (m.bumping) {
      // EndTxn v5's answer: the next epoch (a new id at the epoch's end), never one handed out before.
      m.bumping = false;
      const t = d.stored!;
      assert.ok(t.producerId !== m.producer!.id ? t.epoch === 0 : t.epoch === m.producer!.epoch + 1);
      fenceProducer(m);
      assert.ok(!m.stale.some((s) => s.id === t.producerId && s.epoch === t.epoch));
      m.producer = { id: t.producerId, epoch: t.epoch };
    }
    assert.deepEqual(d.outcomes, m.outcomes.slice(0, finished));
  };
  const begin = (): void => {
    if (!m.open) {
      m.open = true;
      m.openedAt = d.now;
      m.partitions = new Set();
      m.groups = new Set();
      m.offsets = new Map();
    }
  };
  for (const c of commands) {
    const p = m.producer;
    switch (c.kind) {
      case 'init': {
        const step = d.init(c.named && p !== undefined ? p.id : -1n, c.named && p !== undefined ? p.epoch : -1);
        // Its EndTxn v5 not yet answered, the producer names the epoch the stored decision has bumped.
        if (m.bumping && c.named) {
          assert.deepEqual(step, { error: ErrorCode.PRODUCER_FENCED });
          break;
        }
        if (m.pending) {
          assert.deepEqual(step, { error: ErrorCode.CONCURRENT_TRANSACTIONS });
          break;
        }
        if (m.open) {
          // The open transaction is aborted first, its producer fenced; asked again, a new epoch.
          assert.ok('abortFirst' in step);
          abortOpen(m);
          fenceProducer(m);
          settle();
          const again = d.init(-1n, -1);
          assert.ok('ready' in again);
        } else {
          assert.ok(
            'ready' in step,
            JSON.stringify(step, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
          );
        }
        const t = d.stored!;
        // Never an (id, epoch) handed out before.
        assert.ok(!m.stale.some((s) => s.id === t.producerId && s.epoch === t.epoch));
        fenceProducer(m);
        m.producer = { id: t.producerId, epoch: t.epoch };
        assert.equal(t.state, 'Empty');
        break;
      }
      case 'add': {
        if (p === undefined) break;
        const code = d.store(
          addPartitions(
            d.stored,
            p.id,
            p.epoch,
            c.partitions.map((i) => PARTITIONS[i]!),
            d.now,
          ),
        );
        if (m.bumping) assert.equal(code, ErrorCode.PRODUCER_FENCED);
        else if (m.pending) assert.equal(code, ErrorCode.CONCURRENT_TRANSACTIONS);
        else {
          assert.equal(code, ErrorCode.NONE);
          begin();
          for (const i of c.partitions) m.partitions.add(key(PARTITIONS[i]!));
        }
        break;
      }
      case 'addOffsets': {
        if (p === undefined) break;
        const code = d.store(addOffsets(d.stored, p.id, p.epoch, c.group, d.now));
        if (m.bumping) assert.equal(code, ErrorCode.PRODUCER_FENCED);
        else if (m.pending) assert.equal(code, ErrorCode.CONCURRENT_TRANSACTIONS);
        else {
          assert.equal(code, ErrorCode.NONE);
          begin();
          m.groups.add(c.group);
        }
        break;
      }
      case 'offsets': {
        if (p === undefined) break;
        const tp = PARTITIONS[c.partition]!;
        const code = d.store(commitOffsets(d.stored, p.id, p.epoch, c.group, [{ ...tp, offset: BigInt(c.offset), leaderEpoch: 0, metadata: '' }], d.now));
        if (m.bumping) assert.equal(code, ErrorCode.INVALID_PRODUCER_EPOCH);
        else if (m.open && m.groups.has(c.group)) {
          assert.equal(code, ErrorCode.NONE);
          m.offsets.set(`${c.group}:${key(tp)}`, String(c.offset));
        } else assert.equal(code, ErrorCode.INVALID_TXN_STATE);
        break;
      }
      case 'produce': {
        if (p === undefined) break;
        const code = mayWrite(d.stored, p.id, p.epoch, PARTITIONS[c.partition]!);
        if (m.bumping) assert.ok(FENCING.has(code), `a late batch of the ended transaction answered ${code}`);
        else assert.equal(code, m.open && m.partitions.has(key(PARTITIONS[c.partition]!)) ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE);
        break;
      }
      case 'end': {
        if (p === undefined) break;
        const before = d.stored;
        const code = d.store(end(d.stored, p.id, p.epoch, c.commit));
        if (m.open) {
          assert.equal(code, ErrorCode.NONE);
          const offsets = c.commit ? [...m.offsets].map(([k, v]) => `${k}=${v}`).sort() : [];
          m.outcomes.push({ commit: c.commit, partitions: [...m.partitions].sort(), offsets });
          m.open = false;
          m.pending = true;
          m.bumping = v2;
        } else if (m.pending) {
          const decided = before!.state === 'PrepareCommit';
          assert.equal(code, decided === c.commit ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.INVALID_TXN_STATE);
        } else if (v2) {
          // With none open, an abort ends an empty transaction, bumping the epoch; a commit is refused.
          if (c.commit) assert.equal(code, ErrorCode.INVALID_TXN_STATE);
          else {
            assert.equal(code, ErrorCode.NONE);
            m.outcomes.push({ commit: false, partitions: [], offsets: [] });
            m.pending = true;
            m.bumping = true;
          }
        } else if (before!.state === 'Empty') {
          assert.equal(code, ErrorCode.INVALID_TXN_STATE);
        } else {
          // A retry of the EndTxn that completed the last transaction succeeds; the other result is refused.
          assert.equal(code, (before!.state === 'CompleteCommit') === c.commit ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE);
          assert.equal(d.stored, before);
        }
        break;
      }
      case 'finish':
        settle();
        break;
      case 'crash':
        // Only what was stored survives; an open transaction stays open unless past its timeout
        // (counted from its start, the time down included), which aborts it and fences its producer.
        d.now += c.downMs;
        if (d.stored !== undefined) d.stored = recovered(d.stored, d.now);
        if (m.open && d.now - m.openedAt > TIMEOUT) {
          abortOpen(m);
          fenceProducer(m);
        }
        break;
      case 'wait': {
        d.now += c.ms;
        assert.equal(d.stored !== undefined && expired(d.stored, d.now), m.open && d.now - m.openedAt > TIMEOUT);
        if (m.open && d.now - m.openedAt > TIMEOUT) {
          d.stored = fenceAndAbort(d.stored!, d.now);
          abortOpen(m);
          fenceProducer(m);
        }
        break;
      }
      case 'zombie': {
        if (m.stale.length === 0) break;
        const z = m.stale[c.pick % m.stale.length]!;
        const tp = PARTITIONS[0]!;
        const before = d.stored;
        let code: number;
        if (c.what === 'add') code = d.store(addPartitions(d.stored, z.id, z.epoch, [tp], d.now));
        else if (c.what === 'end') code = d.store(end(d.stored, z.id, z.epoch, true));
        else if (c.what === 'offsets')
          code = d.store(commitOffsets(d.stored, z.id, z.epoch, 'g1', [{ ...tp, offset: 1n, leaderEpoch: 0, metadata: '' }], d.now));
        else code = mayWrite(d.stored, z.id, z.epoch, tp);
        // Under v2 the epoch just before the current one may be a retry of the EndTxn that bumped it:
        // answered as done, or refused for its state, but never changing anything.
        const retried =
          v2 && c.what === 'end' && (code === ErrorCode.NONE || code === ErrorCode.INVALID_TXN_STATE || code === ErrorCode.CONCURRENT_TRANSACTIONS);
        assert.ok(FENCING.has(code) || retried, `a zombie's ${c.what} answered ${code}`);
        assert.equal(d.stored, before);
      }
    }
  }
  settle();
}

test('the coordinator follows the model: every transaction ends once, as decided, with exactly its partitions and offsets', () => {
  fc.assert(
    fc.property(fc.array(commandArb, { maxLength: 60 }), (commands) => run(commands)),
    { numRuns: 2000 },
  );
});

test('transactions v2: the coordinator follows the model, each EndTxn bumping the epoch, late requests of an ended transaction fenced', () => {
  fc.assert(
    fc.property(fc.array(commandArb, { maxLength: 60 }), (commands) => run(commands, true)),
    { numRuns: 2000 },
  );
});

test('transactions v2: a crash between every step of EndTxn leaves the producer fenced or finished', () => {
  for (const commit of [true, false]) {
    run(
      [
        { kind: 'init', named: false },
        { kind: 'add', partitions: [0, 2] },
        { kind: 'addOffsets', group: 'g1' },
        { kind: 'offsets', group: 'g1', partition: 1, offset: 7 },
        { kind: 'end', commit },
        // Stored Prepare, its markers not written: the producer's old epoch is fenced everywhere.
        { kind: 'crash', downMs: 0 },
        { kind: 'produce', partition: 0 },
        { kind: 'add', partitions: [1] },
        { kind: 'offsets', group: 'g1', partition: 1, offset: 8 },
        { kind: 'end', commit },
        { kind: 'crash', downMs: 1500 },
        { kind: 'finish' },
        // Finished: the old epoch is a zombie; the new one opens the next transaction.
        { kind: 'zombie', pick: 0, what: 'produce' },
        { kind: 'zombie', pick: 0, what: 'add' },
        { kind: 'add', partitions: [2] },
        { kind: 'end', commit: !commit },
        { kind: 'crash', downMs: 0 },
        { kind: 'finish' },
      ],
      true,
    );
  }
});

test('a crash between every step of EndTxn and of recovery: what was decided is what completes', () => {
  // Open, add, crash (it stays open), add, end (stored Prepare), crash before the markers, crash again, then the markers.
  for (const commit of [true, false]) {
    run([
      { kind: 'init', named: false },
      { kind: 'add', partitions: [0, 2] },
      { kind: 'addOffsets', group: 'g1' },
      { kind: 'offsets', group: 'g1', partition: 1, offset: 7 },
      { kind: 'crash', downMs: 0 },
      { kind: 'produce', partition: 2 },
      { kind: 'add', partitions: [1] },
      { kind: 'crash', downMs: 600 },
      { kind: 'end', commit },
      { kind: 'crash', downMs: 0 },
      { kind: 'init', named: true },
      { kind: 'crash', downMs: 0 },
      { kind: 'finish' },
      { kind: 'end', commit },
    ]);
  }
  // Down past the timeout: recovery stores the abort, crashes before its markers, and the next start completes it.
  run([
    { kind: 'init', named: false },
    { kind: 'add', partitions: [0, 1] },
    { kind: 'crash', downMs: 600 },
    { kind: 'crash', downMs: 600 },
    { kind: 'crash', downMs: 0 },
    { kind: 'finish' },
    { kind: 'zombie', pick: 0, what: 'end' },
    { kind: 'init', named: false },
    { kind: 'add', partitions: [2] },
    { kind: 'end', commit: true },
    { kind: 'finish' },
  ]);
});

test('InitProducerId: a timeout above transaction.max.timeout.ms or below 1 ms is INVALID_TRANSACTION_TIMEOUT', () => {
  const next = (): bigint => 1n;
  for (const timeoutMs of [0, -1, MAX_TIMEOUT + 1]) {
    assert.deepEqual(initProducerId(undefined, { transactionalId: 't', timeoutMs, producerId: -1n, epoch: -1 }, MAX_TIMEOUT, 0, next), {
      error: ErrorCode.INVALID_TRANSACTION_TIMEOUT,
    });
  }
});

test('InitProducerId at the end of the epochs moves to a new producer id at epoch 0, and a retry of it gets the same answer', () => {
  let id = 10n;
  const next = (): bigint => id++;
  const first = initProducerId(undefined, { transactionalId: 't', timeoutMs: TIMEOUT, producerId: -1n, epoch: -1 }, MAX_TIMEOUT, 0, next);
  assert.ok('ready' in first);
  let t: Txn = { ...first.ready, epoch: MAX_EPOCH - 2 };
  const step = initProducerId(t, { transactionalId: 't', timeoutMs: TIMEOUT, producerId: t.producerId, epoch: t.epoch }, MAX_TIMEOUT, 0, next);
  assert.ok('ready' in step);
  t = step.ready;
  assert.deepEqual([t.producerId, t.epoch], [10n, MAX_EPOCH - 1]);
  const moved = initProducerId(t, { transactionalId: 't', timeoutMs: TIMEOUT, producerId: 10n, epoch: MAX_EPOCH - 1 }, MAX_TIMEOUT, 0, next);
  assert.ok('ready' in moved);
  assert.deepEqual([moved.ready.producerId, moved.ready.epoch], [11n, 0]);
  // The answer was lost: asked again with the old id and epoch, the same new ones.
  const retry = initProducerId(moved.ready, { transactionalId: 't', timeoutMs: TIMEOUT, producerId: 10n, epoch: MAX_EPOCH - 1 }, MAX_TIMEOUT, 0, next);
  assert.deepEqual(retry, { ready: moved.ready });
  // An epoch older than that is fenced.
  const zombie = initProducerId(moved.ready, { transactionalId: 't', timeoutMs: TIMEOUT, producerId: 10n, epoch: MAX_EPOCH - 2 }, MAX_TIMEOUT, 0, next);
  assert.deepEqual(zombie, { error: ErrorCode.PRODUCER_FENCED });
});
