import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RequestMemoryPool, type Lane, type MemoryGrant } from '../src/server/request-memory-pool.js';

/** One share as a model: a list of takers in the order they asked, each granted or not. */
interface ModelTaker {
  readonly id: number;
  bytes: number;
  granted: boolean;
  released: boolean;
}

type Action =
  | { readonly kind: 'take'; readonly lane: 0 | 1; readonly bytes: number }
  | { readonly kind: 'release'; readonly pick: number }
  | { readonly kind: 'resize'; readonly pick: number; readonly bytes: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('take' as const), lane: fc.constantFrom(0 as const, 1 as const), bytes: fc.integer({ min: 0, max: 1000 }) }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('resize' as const), pick: fc.nat(), bytes: fc.integer({ min: 0, max: 1000 }) }),
);

test('the pool grants in the order asked, grows a grant only when nothing waits and it fits, never past either share or the whole, and has everything back once all is released', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 1000 }),
      fc.integer({ min: 0, max: 3000 }),
      fc.nat(3000),
      fc.array(action, { maxLength: 80 }),
      (largest, extra, share, actions) => {
        const pool = new RequestMemoryPool(largest + extra, largest, share);
        const lanes: readonly Lane[] = [pool.requests, pool.decompression];
        assert.equal(pool.requests.limit + pool.decompression.limit, pool.capacity);
        assert.ok(pool.requests.limit >= largest, 'the largest request always fits');
        assert.equal(pool.decompression.limit, Math.min(share, extra));
        const model: ModelTaker[][] = [[], []];
        const grants = new Map<number, MemoryGrant>();
        const grantedOrder: number[] = [];
        const expectedOrder: number[] = [];
        let nextId = 0;
        /** The model's grants: each share's takers in order, while the first not granted fits. */
        const settle = (lane: number): void => {
          const takers = model[lane]!;
          let held = takers.filter((t) => t.granted && !t.released).reduce((n, t) => n + t.bytes, 0);
          for (const t of takers) {
            if (t.released || t.granted) continue;
            if (held + t.bytes > lanes[lane]!.limit) break;
            t.granted = true;
            held += t.bytes;
            expectedOrder.push(t.id);
          }
        };
        const check = (): void => {
          let used = 0;
          model.forEach((takers, lane) => {
            let held = 0;
            for (const t of takers) {
              if (t.released) continue;
              assert.equal(grants.get(t.id)!.granted, t.granted, `taker ${t.id} granted as the model says`);
              if (t.granted) held += t.bytes;
            }
            assert.ok(held <= lanes[lane]!.limit);
            used += held;
          });
          assert.equal(pool.used, used);
          assert.ok(pool.used <= pool.capacity && pool.peak <= pool.capacity);
          assert.deepEqual(grantedOrder, expectedOrder, 'granted in the order they asked');
        };
        const release = (taker: ModelTaker, lane: number): void => {
          taker.released = true;
          grants.get(taker.id)!.release();
          settle(lane);
        };
        for (const a of actions) {
          if (a.kind === 'take') {
            const bytes = Math.min(a.bytes, lanes[a.lane]!.limit);
            const id = nextId++;
            const taker: ModelTaker = { id, bytes, granted: false, released: false };
            const grant = lanes[a.lane]!.take(bytes, () => grantedOrder.push(id));
            grants.set(id, grant);
            model[a.lane]!.push(taker);
            // Granted at once (no callback) when nothing waits before it and it fits.
            const waitingBefore = model[a.lane]!.some((t) => t !== taker && !t.released && !t.granted);
            const held = model[a.lane]!.filter((t) => t.granted && !t.released).reduce((n, t) => n + t.bytes, 0);
            if (!waitingBefore && held + bytes <= lanes[a.lane]!.limit) {
              taker.granted = true;
              grantedOrder.push(id);
              expectedOrder.push(id);
            }
          } else if (a.kind === 'resize') {
            const held = model.flatMap((takers, lane) => takers.filter((t) => t.granted && !t.released).map((t) => [t, lane] as const));
            if (held.length === 0) continue;
            const [taker, lane] = held[a.pick % held.length]!;
            const takers = model[lane]!;
            const waiting = takers.some((t) => !t.released && !t.granted);
            const inLane = takers.filter((t) => t.granted && !t.released).reduce((n, t) => n + t.bytes, 0);
            const fits = a.bytes <= taker.bytes || (!waiting && inLane - taker.bytes + a.bytes <= lanes[lane]!.limit);
            assert.equal(grants.get(taker.id)!.resize(a.bytes), fits, 'resized as the model says');
            if (fits) taker.bytes = a.bytes;
            settle(lane);
          } else {
            const open = model.flatMap((takers, lane) => takers.filter((t) => !t.released).map((t) => [t, lane] as const));
            if (open.length === 0) continue;
            const [taker, lane] = open[a.pick % open.length]!;
            release(taker, lane);
          }
          check();
        }
        // Releasing what is granted, again and again, grants every waiting taker in the end.
        for (;;) {
          const granted = model.flatMap((takers, lane) => takers.filter((t) => t.granted && !t.released).map((t) => [t, lane] as const));
          if (granted.length === 0) break;
          for (const [taker, lane] of granted) release(taker, lane);
          check();
        }
        assert.ok(
          model.every((takers) => takers.every((t) => t.released)),
          'no taker is left waiting',
        );
        assert.equal(pool.used, 0);
      },
    ),
    { numRuns: 300 },
  );
});

test('a grant released twice, or before it was granted, gives nothing back twice', () => {
  const pool = new RequestMemoryPool(100, 100, 50);
  const first = pool.requests.take(60, () => {});
  let secondGranted = false;
  const second = pool.requests.take(60, () => (secondGranted = true));
  const third = pool.requests.take(30, () => {});
  assert.equal(third.granted, false, 'waits behind the second, though it would fit');
  second.release();
  assert.equal(third.granted, true, 'the second gave up waiting: the third is next');
  first.release();
  first.release();
  assert.equal(pool.used, 30);
  assert.equal(secondGranted, false);
  third.release();
  assert.equal(pool.used, 0);
  assert.equal(pool.peak, 90);
});
