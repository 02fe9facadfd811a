import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ENTRY_OVERHEAD_BYTES, OffsetMap } from '../src/log/cleaner/offset-map.js';

/** Keys from a small alphabet, so that puts often meet a key again, some empty, some long enough to grow the key bytes. */
const key = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 3, max: 2 }),
  fc.uint8Array({ minLength: 1, maxLength: 40 }),
  fc.uint8Array({ minLength: 5_000, maxLength: 70_000 }).map((bytes) => bytes.fill(7, 1)),
);

const ops = fc.array(fc.record({ key, offset: fc.nat(), put: fc.boolean(), clear: fc.integer({ min: 0, max: 60 }).map((n) => n === 0) }), { maxLength: 3_000 });

test("the offset map answers each key's latest offset as a Map of the keys would, until its room is spent, and takes no new key after", () => {
  fc.assert(
    fc.property(ops, fc.integer({ min: 0, max: 400_000 }), fc.nat({ max: 16 }), (steps, capacity, padding) => {
      const map = new OffsetMap(capacity);
      let model = new Map<string, number>();
      let used = 0;
      for (const step of steps) {
        if (step.clear) {
          map.clear();
          model = new Map();
          used = 0;
        }
        // The key sits inside larger bytes, as in a batch's body.
        const bytes = Buffer.concat([Buffer.alloc(padding, 9), step.key, Buffer.alloc(padding, 9)]);
        const name = Buffer.from(step.key).toString('hex');
        const end = padding + step.key.length;
        if (step.put) {
          const fits = model.has(name) || used + step.key.length + ENTRY_OVERHEAD_BYTES <= capacity;
          assert.equal(map.put(bytes, padding, end, step.offset), fits);
          if (fits && !model.has(name)) used += step.key.length + ENTRY_OVERHEAD_BYTES;
          if (fits) model.set(name, step.offset);
        }
        assert.equal(map.get(bytes, padding, end), model.get(name));
      }
    }),
    { numRuns: 200 },
  );
});

test('the offset map keeps a hundred thousand keys, growing past its first table many times', () => {
  const map = new OffsetMap(64 * 1024 * 1024);
  const keyOf = (i: number): Buffer => Buffer.from(`key-${i}`);
  for (let round = 0; round < 2; round++) for (let i = 0; i < 100_000; i++) assert.ok(map.put(keyOf(i), 0, keyOf(i).length, round * 100_000 + i));
  for (let i = 0; i < 100_000; i += 7) assert.equal(map.get(keyOf(i), 0, keyOf(i).length), 100_000 + i);
  assert.equal(map.get(Buffer.from('key-100000'), 0, 10), undefined);
});
