/** Stored batches opened into records (the console's message browser), and the batches it writes: against the broker's own batch check. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assignBaseOffset, validateProducedBatch } from '../src/protocol/record-batch.js';
import { isRefusal } from '../src/protocol/refusal.js';
import { encodeRecordBatch, readStoredRecords, type NewRecord } from '../src/protocol/stored-records.js';
import { buildBatch } from './helpers/batch.js';
import { codecs, compressedBatch } from './helpers/compressed-batch.js';

const RULES = { type: 'CreateTime', beforeMaxMs: Number.MAX_SAFE_INTEGER, afterMaxMs: Number.MAX_SAFE_INTEGER } as const;
const bytes = fc.option(
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  { nil: null },
);
const record: fc.Arbitrary<NewRecord> = fc.record({
  key: bytes,
  value: bytes,
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 20 }), value: bytes }), { maxLength: 3 }),
});

test('a batch the console writes passes the broker check and reads back as written, from any offset', () => {
  fc.assert(
    fc.property(fc.array(record, { minLength: 1, maxLength: 8 }), fc.nat({ max: 1_000_000 }), fc.nat({ max: 9 }), (records, base, skip) => {
      const batch = encodeRecordBatch(records, 1_700_000_000_000);
      const header = validateProducedBatch(batch, { bytes: 1 << 20 }, RULES, 1_700_000_000_000);
      if (isRefusal(header)) assert.fail(header.message ?? 'refused');
      assert.equal(header.recordCount, records.length);
      assert.equal(header.producerId, -1n);
      assignBaseOffset(batch, 0, base);
      const from = base + Math.min(skip, records.length);
      const read = readStoredRecords(batch, from, 100, 1 << 20);
      assert.deepEqual(
        read.map((r) => ({ offset: r.offset, key: r.key, value: r.value, headers: r.headers })),
        records
          .slice(from - base)
          .map((r, i) => ({ offset: from + i, key: r.key, value: r.value, headers: r.headers.map((h) => ({ key: h.key, value: h.value })) })),
      );
    }),
  );
});

test('records of compressed batches, and of several batches, are read in order up to the most asked for', () => {
  const values = (prefix: string): { value: Buffer }[] => [0, 1, 2].map((i) => ({ value: Buffer.from(`${prefix}${i}`) }));
  for (const codec of codecs) {
    const first = buildBatch(values('plain-'));
    const second = compressedBatch(values(`${codec.name}-`), codec);
    assignBaseOffset(second, 0, 3);
    const read = readStoredRecords(Buffer.concat([first, second]), 1, 4, 1 << 20);
    assert.deepEqual(
      read.map((r) => [r.offset, r.value?.toString()]),
      [
        [1, 'plain-1'],
        [2, 'plain-2'],
        [3, `${codec.name}-0`],
        [4, `${codec.name}-1`],
      ],
      codec.name,
    );
  }
});

test('a batch header cut short ends what is read', () => {
  const batch = buildBatch([{ value: Buffer.from('whole') }]);
  assert.deepEqual(
    readStoredRecords(Buffer.concat([batch, batch.subarray(0, 30)]), 0, 10, 1 << 20).map((r) => r.value?.toString()),
    ['whole'],
  );
});
