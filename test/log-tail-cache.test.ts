import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { TailCache } from '../src/log/tail-cache.js';
import { MemoryBudget, unbounded } from '../src/memory/memory-budget.js';

/** Batches as the log appends them: consecutive offset ranges, bytes that name their batch. */
function batches(sizes: readonly number[]): { base: number; end: number; bytes: Buffer }[] {
  let base = 0;
  return sizes.map((size, i) => {
    const bytes = Buffer.alloc(size, i % 251);
    const batch = { base, end: base + 1 + (i % 3), bytes };
    base = batch.end;
    return batch;
  });
}

/** A tail cache whose partition a reader has asked for batches, so that it caches what is pushed. */
function readCache(capacity: number, budget: MemoryBudget = unbounded()): TailCache {
  const cache = new TailCache(capacity, budget);
  cache.noteRead();
  return cache;
}

test('the tail cache answers from its ring exactly what was pushed, across wraps and evictions', () => {
  fc.assert(
    fc.property(
      // Small caches wrap and evict at once; large ones also grow their ring (it starts at 64 KiB) first.
      fc.oneof(fc.integer({ min: 0, max: 4096 }), fc.integer({ min: 65_536, max: 300_000 })),
      fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 60 }),
      fc.nat(),
      fc.integer({ min: 1, max: 6000 }),
      (capacity, sizes, pick, maxBytes) => {
        const cache = readCache(capacity);
        const all = batches(sizes);
        for (const b of all) cache.push(b.base, b.end, b.bytes);
        const hw = all.at(-1)!.end;
        const target = all[pick % all.length]!;
        const got = cache.read(target.base, maxBytes, hw);
        // What a ring of `capacity` bytes can still hold: the newest batches whose bytes fit together.
        const last = all.at(-1)!;
        if (got === undefined) {
          assert.ok(target !== last || last.bytes.length > capacity, 'the newest batch is cached when it fits');
          return;
        }
        const from = all.indexOf(target);
        // The batches from the target that the copy holds, back to back.
        let count = 0;
        let total = 0;
        while (from + count < all.length && total < got.length) total += all[from + count++]!.bytes.length;
        assert.ok(count >= 1);
        assert.deepEqual(got, Buffer.concat(all.slice(from, from + count).map((b) => b.bytes)), `batches ${from}..${from + count - 1} come back byte for byte`);
        assert.ok(count === 1 || total <= maxBytes, 'more than one batch only within maxBytes');
        const next = all[from + count];
        if (next !== undefined && total + next.bytes.length <= maxBytes) {
          assert.fail('a read stops early only at maxBytes or at what the ring no longer holds');
        }
      },
    ),
  );
});

test('the tail cache stops at the high watermark and misses offsets it no longer holds', () => {
  const cache = readCache(100);
  const [a, b, c] = batches([40, 40, 40]);
  for (const x of [a!, b!, c!]) cache.push(x.base, x.end, x.bytes);
  assert.equal(cache.read(a!.base, 1000, c!.end), undefined, 'the first batch was overwritten by the third');
  assert.deepEqual(cache.read(b!.base, 1000, c!.base), b!.bytes, 'nothing at or past the high watermark');
  assert.deepEqual(cache.read(b!.base, 1000, c!.end), Buffer.concat([b!.bytes, c!.bytes]));
});

test('the tail cache keeps no reference to the buffers pushed into it', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const cache = readCache(1 << 20);
  const refs: WeakRef<ArrayBuffer>[] = [];
  (() => {
    for (let i = 0; i < 8; i++) {
      const request = new ArrayBuffer(64 * 1024);
      refs.push(new WeakRef(request));
      const bytes = Buffer.from(request, 100, 10_000).fill(i);
      cache.push(i, i + 1, bytes);
    }
  })();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.deepEqual(
    refs.map((r) => r.deref()),
    refs.map(() => undefined),
    'every request buffer can be collected',
  );
  assert.deepEqual(cache.read(3, 1, 8), Buffer.alloc(10_000, 3), 'while its bytes are still served');
});

test('a partition that caches little holds a small ring, not the whole capacity', () => {
  const before = process.memoryUsage().arrayBuffers;
  const caches = Array.from({ length: 200 }, () => readCache(16 * 1024 * 1024));
  for (const cache of caches) cache.push(0, 1, Buffer.alloc(1000));
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(grown < 200 * 128 * 1024, `200 caches of one small batch hold ${grown} bytes`);
  assert.deepEqual(caches[7]!.read(0, 1, 1), Buffer.alloc(1000));
});

test('tail caches sharing a budget hold within it together and answer right or not at all after giving memory back', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 400_000 }),
      fc.array(fc.record({ cache: fc.nat(4), size: fc.integer({ min: 1, max: 60_000 }), release: fc.boolean(), tick: fc.boolean() }), {
        minLength: 1,
        maxLength: 80,
      }),
      (limit, steps) => {
        const budget = new MemoryBudget(limit);
        const caches = Array.from({ length: 5 }, () => readCache(256 * 1024, budget));
        const pushed: { base: number; end: number; bytes: Buffer }[][] = caches.map(() => []);
        for (const [i, step] of steps.entries()) {
          const log = pushed[step.cache]!;
          const base = log.at(-1)?.end ?? 0;
          const batch = { base, end: base + 1, bytes: Buffer.alloc(step.size, i % 251) };
          log.push(batch);
          caches[step.cache]!.push(batch.base, batch.end, batch.bytes);
          if (step.tick) budget.tick++;
          if (step.release) caches[(step.cache + 1) % 5]!.release();
          assert.ok(budget.usedBytes <= limit, `${budget.usedBytes} bytes held, over the budget of ${limit}`);
        }
        for (const [c, cache] of caches.entries()) {
          for (const batch of pushed[c]!) {
            const got = cache.read(batch.base, 1, batch.end);
            if (got !== undefined) assert.deepEqual(got, batch.bytes);
          }
        }
        for (const cache of caches) cache.release();
        assert.equal(budget.usedBytes, 0, 'all given back');
      },
    ),
  );
});

test('the least recently used tail cache gives its memory back when another needs room in the budget', () => {
  const budget = new MemoryBudget(200_000);
  const busy = readCache(1 << 20, budget);
  const starved = readCache(1 << 20, budget);
  busy.push(0, 1, Buffer.alloc(90_000, 1));
  budget.tick++;
  starved.push(0, 1, Buffer.alloc(90_000, 2));
  assert.equal(busy.read(0, 1, 1), undefined, 'the least recently used gave its memory back');
  assert.deepEqual(starved.read(0, 1, 1), Buffer.alloc(90_000, 2));
  assert.ok(budget.usedBytes <= 200_000);
});

test('a ring the budget cannot give the whole capacity grows as far as the budget allows', () => {
  const budget = new MemoryBudget(512 * 1024);
  const cache = readCache(1 << 20, budget);
  const all = batches(Array.from({ length: 40 }, () => 10_000));
  for (const b of all) cache.push(b.base, b.end, b.bytes);
  const hw = all.at(-1)!.end;
  assert.deepEqual(cache.read(0, 1, hw), all[0]!.bytes, '400 KB of batches are all held in the 512 KiB the budget has');
  assert.ok(budget.usedBytes <= 512 * 1024);
});

test('a partition no reader asked for batches caches nothing and holds no memory, until one does', () => {
  const budget = new MemoryBudget(1 << 30);
  const cache = new TailCache(1 << 20, budget);
  const all = batches([10_000, 10_000, 10_000, 10_000]);
  for (const b of all.slice(0, 2)) cache.push(b.base, b.end, b.bytes);
  assert.equal(cache.read(all[1]!.base, 1, all[1]!.end), undefined, 'unread, nothing is cached');
  assert.equal(budget.usedBytes, 0, 'nor any ring held');
  cache.noteRead();
  for (const b of all.slice(2)) cache.push(b.base, b.end, b.bytes);
  assert.equal(cache.read(all[1]!.base, 1, all[3]!.end), undefined, 'what came before the reader is not');
  assert.deepEqual(cache.read(all[2]!.base, 1 << 20, all[3]!.end), Buffer.concat([all[2]!.bytes, all[3]!.bytes]), 'what came after it is');
});

test('a partition unread for as long as the budget keeps idle memory stops caching', () => {
  const budget = new MemoryBudget(1 << 30);
  budget.startSweeping(3000);
  budget.stopSweeping();
  const cache = readCache(1 << 20, budget);
  const [a, b, c] = batches([10_000, 10_000, 10_000]);
  cache.push(a!.base, a!.end, a!.bytes);
  budget.tick += 2;
  cache.push(b!.base, b!.end, b!.bytes);
  assert.deepEqual(cache.read(a!.base, 1 << 20, b!.end), Buffer.concat([a!.bytes, b!.bytes]), 'read two ticks ago: still caching');
  budget.tick += 1;
  cache.push(c!.base, c!.end, c!.bytes);
  for (const x of [a!, b!, c!]) assert.equal(cache.read(x.base, 1, c!.end), undefined, `batch at ${x.base} no longer cached`);
  cache.noteRead();
  cache.push(c!.end, c!.end + 1, c!.bytes);
  assert.deepEqual(cache.read(c!.end, 1, c!.end + 1), c!.bytes, 'read again: caching again');
});

test('a tail cache size no buffer can have is refused when the cache is made', () => {
  assert.throws(() => new TailCache(-1, unbounded()), RangeError);
  assert.throws(() => new TailCache(2 ** 60, unbounded()), RangeError);
});
