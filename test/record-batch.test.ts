import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { crc32c } from '../src/protocol/crc32c.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import {
  assignBaseOffset,
  firstRecordAtOrAfter,
  readBatchHeader,
  validateProducedBatch,
  type BatchHeader,
  type DecompressionRoom,
  type TimestampRules,
} from '../src/protocol/record-batch.js';
import { isRefusal, type Refusal } from '../src/protocol/refusal.js';
import { buildBatch, encodeRecord, valuesBatch, type TestRecord } from './helpers/batch.js';
import { codecs, compressedBatch, rawRecords, sealBatch } from './helpers/compressed-batch.js';

const { CORRUPT_MESSAGE, INVALID_RECORD, MESSAGE_TOO_LARGE } = ErrorCode;

/** The most a compressed batch's records may take decompressed, in these tests. */
const LIMIT = 1 << 20;
/** Producer times taken whatever they are. */
const ANY_TIME: TimestampRules = { type: 'CreateTime', beforeMaxMs: Infinity, afterMaxMs: Infinity };

/** A refusal the validator answered, thrown here so that tests can assert on it as on any failure. */
class Refused extends Error {
  readonly errorCode: number;
  readonly recordErrors: Refusal['recordErrors'];
  constructor(refusal: Refusal) {
    super(refusal.message ?? '');
    this.errorCode = refusal.errorCode;
    this.recordErrors = refusal.recordErrors;
  }
}

function validate(batch: Buffer, room: DecompressionRoom, rules = ANY_TIME, now = Date.now()): BatchHeader {
  const checked = validateProducedBatch(batch, room, rules, now);
  if (isRefusal(checked)) throw new Refused(checked);
  return checked;
}

function rejects(batch: Buffer, code: number, pattern: RegExp, limit = LIMIT): void {
  assert.throws(
    () => validate(batch, { bytes: limit }),
    (err: unknown) => err instanceof Refused && err.errorCode === code && pattern.test(err.message),
    `expected ${code} ${pattern}`,
  );
}

/** What validation says of a batch: accepted, or the error code and message. */
function verdict(batch: Buffer): string {
  try {
    return `accepted ${validate(batch, { bytes: LIMIT }).recordCount}`;
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    return `${err.errorCode} ${err.message}`;
  }
}

/** Re-seals the CRC after a test edits bytes it covers, so the edit itself is what is judged. */
function reseal(batch: Buffer): Buffer {
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

test('CRC32C matches the standard check value', () => {
  assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
});

test('a well-formed batch passes and its header is read', () => {
  const batch = buildBatch(
    [
      { key: Buffer.from('k'), value: Buffer.from('hello'), headers: [['h', Buffer.from('x')]] },
      { key: null, value: null },
    ],
    { producerId: 42n, producerEpoch: 3, baseSequence: 7, baseTimestamp: 1000 },
  );
  const header = validate(batch, { bytes: LIMIT });
  assert.equal(header.recordCount, 2);
  assert.equal(header.producerId, 42n);
  assert.equal(header.producerEpoch, 3);
  assert.equal(header.baseSequence, 7);
  assert.equal(header.size, batch.length);
  assert.deepEqual(readBatchHeader(batch), header);
});

const sample: TestRecord[] = [
  { key: Buffer.from('k'), value: Buffer.from('hello'), headers: [['h', Buffer.from('x')]] },
  { key: null, value: null },
  ...Array.from({ length: 200 }, (_, i) => ({ value: Buffer.from(`value ${i} `.repeat(i % 40)) })),
];

test('compressed batches of every codec are decompressed and their records walked', () => {
  assert.equal(validate(valuesBatch(10, { gzip: true }), { bytes: LIMIT }).recordCount, 10);
  for (const codec of codecs) {
    assert.equal(validate(compressedBatch(sample, codec), { bytes: LIMIT }).recordCount, sample.length, codec.name);
  }
});

test('a payload its codec cannot open is INVALID_RECORD', () => {
  for (const codec of codecs) {
    const payload = codec.compress(rawRecords(sample));
    const cases: [string, Buffer][] = [
      ['garbage', Buffer.from('\xff\xff\xff\xffthis is not compressed at all')],
      ['empty', Buffer.alloc(0)],
      ['the last byte cut off', payload.subarray(0, payload.length - 1)],
      ['cut in half', payload.subarray(0, payload.length >> 1)],
      ['bytes after the stream', Buffer.concat([payload, Buffer.from('junk')])],
    ];
    for (const [what, bytes] of cases) {
      assert.equal(verdict(sealBatch(codec.id, bytes, sample.length)).slice(0, 3), '87 ', `${codec.name}: ${what}`);
    }
  }
  // Kafka's Java client reads only LZ4 frames of independent blocks.
  const linked = codecs.find((c) => c.name === 'lz4')!.compress(rawRecords(sample));
  linked[4]! &= ~0x20;
  rejects(sealBatch(3, linked, sample.length), INVALID_RECORD, /LZ4 frame descriptor 40 40 is not one Kafka reads/);
});

test('records inside a compressed batch are checked as uncompressed ones are: count, offset deltas, layout', () => {
  const one = rawRecords([{ value: Buffer.from('x') }]);
  const two = rawRecords([{ value: Buffer.from('a') }, { value: Buffer.from('b') }]);
  const deltaZeroTwice = Buffer.concat([encodeRecord({ value: Buffer.from('a') }, 0), encodeRecord({ value: Buffer.from('b') }, 0)]);
  for (const codec of codecs) {
    rejects(sealBatch(codec.id, codec.compress(one), 1_000_000), INVALID_RECORD, /claims 1000000 records but holds 1/);
    rejects(sealBatch(codec.id, codec.compress(two), 1), INVALID_RECORD, /bytes after its 1 records/);
    rejects(sealBatch(codec.id, codec.compress(deltaZeroTwice), 2), INVALID_RECORD, /record 1 has offset delta 0/);
    rejects(sealBatch(codec.id, codec.compress(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])), 1), INVALID_RECORD, /length/);
    rejects(sealBatch(codec.id, codec.compress(Buffer.alloc(0)), 1), INVALID_RECORD, /claims 1 records but holds 0/);
  }
});

test('records that would decompress past the limit are MESSAGE_TOO_LARGE', () => {
  const big = [{ value: Buffer.alloc(2 * LIMIT) }];
  for (const codec of codecs) {
    const batch = compressedBatch(big, codec);
    assert.ok(batch.length < LIMIT / 10, `${codec.name} compresses zeros well`);
    rejects(batch, MESSAGE_TOO_LARGE, new RegExp(`more than the ${LIMIT} bytes`, 'i'));
    assert.equal(validate(batch, { bytes: 4 * LIMIT }).recordCount, 1, `${codec.name} under a larger limit`);
  }
});

test('a batch takes from its room what its records decompress to, and is refused when they would not fit', () => {
  const records = [{ value: Buffer.alloc(LIMIT / 2) }];
  const size = rawRecords(records).length;
  for (const codec of codecs) {
    const batch = compressedBatch(records, codec);
    const room = { bytes: LIMIT };
    validate(batch, room);
    assert.equal(room.bytes, LIMIT - size, codec.name);
    const short = { bytes: size - 1 };
    assert.throws(
      () => validate(batch, short),
      (err: unknown) => err instanceof Refused && err.errorCode === MESSAGE_TOO_LARGE,
      codec.name,
    );
    assert.equal(short.bytes, size - 1, `${codec.name}: a refused batch takes nothing`);
    assert.equal(validate(valuesBatch(3), short).recordCount, 3, `${codec.name}: uncompressed records take no room`);
    assert.equal(short.bytes, size - 1);
  }
});

test('a bomb is refused from its framing, before it is decompressed', () => {
  // A snappy block whose preamble claims 4 GiB.
  rejects(sealBatch(2, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]), 1), MESSAGE_TOO_LARGE, /snappy/);
  // A zstd frame of 4096 RLE blocks, 128 KiB each: 512 MiB from 12 KiB.
  const rle = Buffer.alloc(4);
  rle.writeUIntLE(((128 << 10) << 3) | (1 << 1), 0, 3);
  const blocks = Array.from({ length: 4096 }, () => rle);
  const lastBlock = Buffer.from(rle);
  lastBlock[0]! |= 1;
  const frame = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58]), ...blocks.slice(1), lastBlock]);
  const started = process.hrtime.bigint();
  rejects(sealBatch(4, frame, 1), MESSAGE_TOO_LARGE, /zstd/, 100 * 1024 * 1024);
  assert.ok(process.hrtime.bigint() - started < 200_000_000n, 'refused without decompressing');
});

test('property: a compressed batch is judged exactly as the same records uncompressed, for every codec', () => {
  const bytes = fc.option(
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    { nil: null },
  );
  const wellFormed = fc.record({ key: bytes, value: bytes, timestampDelta: fc.nat({ max: 2 ** 20 }) });
  // A record body: well formed at its place, at a wrong offset delta, or any bytes at all.
  const body = fc.oneof(
    { arbitrary: wellFormed.map((r) => (i: number) => encodeRecord(r, i)), weight: 30 },
    {
      arbitrary: fc.tuple(wellFormed, fc.integer({ min: -2, max: 2 })).map(
        ([r, d]) =>
          (i: number) =>
            encodeRecord(r, i + d),
      ),
      weight: 1,
    },
    { arbitrary: fc.uint8Array({ maxLength: 20 }).map((b) => () => Buffer.from(b)), weight: 1 },
  );
  // Mostly the true count; sometimes one more or one fewer than the records held.
  const countSkew = fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: fc.constantFrom(-1, 1), weight: 1 });
  fc.assert(
    fc.property(fc.array(body, { maxLength: 30 }), countSkew, fc.constantFrom(...codecs), (bodies, countSkew, codec) => {
      const raw = Buffer.concat(bodies.map((make, i) => make(i)));
      const count = bodies.length + countSkew;
      assert.equal(verdict(sealBatch(codec.id, codec.compress(raw), count)), verdict(sealBatch(0, raw, count)));
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 500) },
  );
});

test('bad batches are refused with CORRUPT_MESSAGE or INVALID_RECORD', () => {
  rejects(Buffer.alloc(20), CORRUPT_MESSAGE, /less than a batch header/);
  const flipped = valuesBatch(3);
  flipped[flipped.length - 1]! ^= 1;
  rejects(flipped, CORRUPT_MESSAGE, /CRC/);
  const magic1 = valuesBatch(1);
  magic1.writeInt8(1, 16);
  rejects(magic1, INVALID_RECORD, /magic 1/);
  const tooLong = valuesBatch(2);
  tooLong.writeInt32BE(tooLong.length, 8);
  rejects(tooLong, CORRUPT_MESSAGE, /does not fit/);
  rejects(Buffer.concat([valuesBatch(1), valuesBatch(1)]), INVALID_RECORD, /exactly one record batch/);
  const lyingCount = valuesBatch(3);
  lyingCount.writeInt32BE(4, 57);
  lyingCount.writeInt32BE(3, 23);
  rejects(reseal(lyingCount), INVALID_RECORD, /claims 4 records but holds 3/);
  const fewerClaimed = valuesBatch(3);
  fewerClaimed.writeInt32BE(2, 57);
  fewerClaimed.writeInt32BE(1, 23);
  rejects(reseal(fewerClaimed), INVALID_RECORD, /bytes after its 2 records/);
  const delta = valuesBatch(3);
  delta.writeInt32BE(5, 23);
  rejects(reseal(delta), INVALID_RECORD, /lastOffsetDelta 5/);
  const zero = valuesBatch(1);
  zero.writeInt32BE(0, 57);
  zero.writeInt32BE(-1, 23);
  rejects(reseal(zero), INVALID_RECORD, /not positive/);
  const noSeq = valuesBatch(1, { producerId: 1n, producerEpoch: 0, baseSequence: -1 });
  rejects(noSeq, INVALID_RECORD, /base sequence/);
  const control = valuesBatch(1);
  control.writeInt16BE(0x20, 21);
  rejects(reseal(control), INVALID_RECORD, /control/);
  const codec = valuesBatch(1);
  codec.writeInt16BE(5, 21);
  rejects(reseal(codec), INVALID_RECORD, /compression codec 5/);
});

test('records inside the batch are walked: offset deltas, lengths and varints', () => {
  const record = (offsetDelta: number): Buffer => encodeRecord({ value: Buffer.from('v') }, offsetDelta);
  const withRecords = (body: Buffer, count: number): Buffer => {
    const base = valuesBatch(count);
    const batch = Buffer.concat([base.subarray(0, 61), body]);
    batch.writeInt32BE(batch.length - 12, 8);
    return reseal(batch);
  };
  rejects(withRecords(Buffer.concat([record(0), record(0)]), 2), INVALID_RECORD, /record 1 has offset delta 0/);
  const negativeLength = Buffer.from([0x01]); // zigzag -1
  rejects(withRecords(negativeLength, 1), INVALID_RECORD, /length -1/);
  const overlong = Buffer.alloc(12, 0xff);
  rejects(withRecords(overlong, 1), INVALID_RECORD, /varint/);
  const shortRecord = record(0);
  shortRecord[0] = shortRecord[0]! + 2; // claims two more bytes than its fields hold
  rejects(withRecords(Buffer.concat([shortRecord, Buffer.alloc(2)]), 1), INVALID_RECORD, /do not fill/);
});

test('property: well-formed records of every shape pass the walk, and each is found by its timestamp', () => {
  const bytes = fc.option(
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
    { nil: null },
  );
  const record = fc.record({
    key: bytes,
    value: bytes,
    headers: fc.array(
      fc.tuple(
        fc.string({ maxLength: 10 }),
        fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b)),
      ),
      { maxLength: 3 },
    ),
    // Deltas from one byte to the seven a varlong needs past 2^45.
    timestampDelta: fc.oneof(fc.integer({ min: 0, max: 63 }), fc.integer({ min: 0, max: 2 ** 20 }), fc.integer({ min: 0, max: 2 ** 45 })),
  });
  fc.assert(
    fc.property(fc.array(record, { minLength: 1, maxLength: 40 }), fc.nat({ max: 39 }), (records, pick) => {
      const baseTimestamp = 1_000_000;
      const batch = buildBatch(records, { baseTimestamp });
      assert.equal(validate(batch, { bytes: LIMIT }).recordCount, records.length);
      const i = pick % records.length;
      const wanted = baseTimestamp + records[i]!.timestampDelta;
      const first = records.findIndex((r) => baseTimestamp + r.timestampDelta >= wanted);
      assert.deepEqual(firstRecordAtOrAfter(batch, wanted), { offset: first, timestamp: baseTimestamp + records[first]!.timestampDelta });
    }),
    { numRuns: 300 },
  );
});

test('a varlong past 2^53 keeps its sign: a record far in the past is not taken for one in the future', () => {
  const baseTimestamp = 1_000_000;
  const batch = buildBatch([{ value: Buffer.from('a') }, { value: Buffer.from('b') }], { baseTimestamp });
  // Record 0 again with a timestamp delta of -2^60: zigzag 2^61 - 1, eight 0xff bytes then 0x1f.
  const body = Buffer.concat([Buffer.from([0]), Buffer.alloc(8, 0xff), Buffer.from([0x1f]), Buffer.from([0, 1, 2, 0x61, 0])]);
  const first = Buffer.concat([Buffer.from([body.length * 2]), body]);
  const second = encodeRecord({ value: Buffer.from('b') }, 1);
  const farPast = Buffer.concat([batch.subarray(0, 61), first, second]);
  farPast.writeInt32BE(farPast.length - 12, 8);
  reseal(farPast);
  assert.equal(validate(farPast, { bytes: LIMIT }).recordCount, 2);
  assert.deepEqual(firstRecordAtOrAfter(farPast, baseTimestamp), { offset: 1, timestamp: baseTimestamp });
});

test('property: any byte damage after the header is caught and refused, never thrown', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (count, where, xor) => {
      const batch = valuesBatch(count);
      const pos = 21 + (where % (batch.length - 21));
      batch[pos]! ^= xor;
      assert.throws(
        () => validate(batch, { bytes: LIMIT }),
        (err: unknown) => err instanceof Refused && err.errorCode === CORRUPT_MESSAGE,
      );
    }),
  );
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      try {
        validate(Buffer.from(bytes), { bytes: LIMIT });
      } catch (err) {
        assert.ok(err instanceof Refused, String(err));
      }
    }),
  );
  // Garbage records under a valid CRC: only the record walk can catch them.
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: 4 }), (bytes, count) => {
      const batch = Buffer.concat([valuesBatch(count).subarray(0, 61), Buffer.from(bytes)]);
      batch.writeInt32BE(batch.length - 12, 8);
      try {
        validate(reseal(batch), { bytes: LIMIT });
      } catch (err) {
        assert.ok(err instanceof Refused && err.errorCode === INVALID_RECORD, String(err));
      }
    }),
  );
});

test('property: an assigned base offset reads back exactly, past 2^32 too, and touches only its 8 bytes', () => {
  const batch = valuesBatch(3);
  fc.assert(
    fc.property(fc.maxSafeNat(), (offset) => {
      const copy = Buffer.from(batch);
      assignBaseOffset(copy, 0, offset);
      assert.equal(readBatchHeader(copy).baseOffset, offset);
      assert.equal(copy.readBigInt64BE(0), BigInt(offset));
      assert.deepEqual(copy.subarray(8), batch.subarray(8));
    }),
  );
});

/** A batch as Sarama 1.22 sends it: every field right but the header's max timestamp, left -1. */
function unsetMaxTimestamp(batch: Buffer): Buffer {
  batch.writeBigInt64BE(-1n, 35);
  return reseal(batch);
}

/** Whether every byte but the attributes, max timestamp and CRC is as it was. */
function sameButTimes(before: Buffer, after: Buffer): boolean {
  const cut = (b: Buffer) => Buffer.concat([b.subarray(0, 17), b.subarray(23, 35), b.subarray(43)]);
  return before.length === after.length && cut(before).equals(cut(after));
}

test('property: the header max timestamp is set to what the records say, with a CRC to match, whatever the client wrote there', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: -5000, max: 5000 }), { minLength: 1, maxLength: 20 }),
      fc.constantFrom(-1, 0, 1_700_000_000_000, 9_999_999_999_999),
      fc.boolean(),
      (deltas, written, gzip) => {
        const baseTimestamp = 1_700_000_000_000;
        const batch = buildBatch(
          deltas.map((timestampDelta) => ({ value: Buffer.from('v'), timestampDelta })),
          { baseTimestamp, gzip },
        );
        batch.writeBigInt64BE(BigInt(written), 35);
        reseal(batch);
        const sent = Buffer.from(batch);
        const header = validate(batch, { bytes: LIMIT });
        const truth = baseTimestamp + Math.max(...deltas);
        assert.equal(header.maxTimestamp, truth);
        assert.deepEqual(readBatchHeader(batch), header, 'the bytes say what the header returned says');
        assert.equal(crc32c(batch.subarray(21)), batch.readUInt32BE(17), 'the CRC covers the new header');
        assert.ok(sameButTimes(sent, batch), 'nothing else changed');
        if (written === truth) assert.ok(sent.equals(batch), 'a right header is left untouched');
      },
    ),
  );
});

test('a batch whose header says now but holds a record a century ahead is INVALID_TIMESTAMP, naming that record', () => {
  const now = Date.now();
  const century = 100 * 365 * 86_400_000;
  const batch = buildBatch([{ value: Buffer.from('a') }, { value: Buffer.from('b'), timestampDelta: century }, { value: Buffer.from('c') }], {
    baseTimestamp: now,
  });
  batch.writeBigInt64BE(BigInt(now), 35);
  reseal(batch);
  const rules: TimestampRules = { type: 'CreateTime', beforeMaxMs: Infinity, afterMaxMs: 3_600_000 };
  assert.throws(
    () => validate(batch, { bytes: LIMIT }, rules, now),
    (err: unknown) =>
      err instanceof Refused &&
      err.errorCode === ErrorCode.INVALID_TIMESTAMP &&
      err.recordErrors.length === 1 &&
      err.recordErrors[0]!.batchIndex === 1 &&
      err.recordErrors[0]!.message.includes(String(now + century)),
  );
  // The same records an hour and a bit later, behind a limit of a day: each too old one is named.
  const late: TimestampRules = { type: 'CreateTime', beforeMaxMs: 86_400_000, afterMaxMs: Infinity };
  const old = buildBatch([{ value: Buffer.from('a') }, { value: Buffer.from('b'), timestampDelta: 2 * 86_400_000 }, { value: Buffer.from('c') }], {
    baseTimestamp: now - 2 * 86_400_000,
  });
  assert.throws(
    () => validate(old, { bytes: LIMIT }, late, now),
    (err: unknown) => err instanceof Refused && err.errorCode === ErrorCode.INVALID_TIMESTAMP && err.recordErrors.map((e) => e.batchIndex).join() === '0,2',
  );
});

test('records without a time (-1) are never out of range, and leave the max timestamp -1', () => {
  const batch = buildBatch([{ value: Buffer.from('a') }, { value: Buffer.from('b') }], { baseTimestamp: -1 });
  const header = validate(batch, { bytes: LIMIT }, { type: 'CreateTime', beforeMaxMs: 0, afterMaxMs: 0 }, Date.now());
  assert.equal(header.maxTimestamp, -1);
});

test('under LogAppendTime the batch is marked so and stamped with the broker clock; a producer may not mark it so itself', () => {
  const now = 1_800_000_000_000;
  const rules: TimestampRules = { type: 'LogAppendTime', beforeMaxMs: 0, afterMaxMs: 0 };
  for (const gzip of [false, true]) {
    const batch = valuesBatch(3, { baseTimestamp: 5, gzip });
    const sent = Buffer.from(batch);
    const header = validate(batch, { bytes: LIMIT }, rules, now);
    assert.equal(header.maxTimestamp, now, 'records far in the past do not matter: their time is the append');
    assert.equal(header.attributes & 0x08, 0x08);
    assert.deepEqual(readBatchHeader(batch), header);
    assert.equal(crc32c(batch.subarray(21)), batch.readUInt32BE(17));
    assert.ok(sameButTimes(sent, batch));
  }
  const claimed = valuesBatch(2);
  claimed.writeInt16BE(0x08, 21);
  reseal(claimed);
  for (const type of ['CreateTime', 'LogAppendTime'] as const) {
    assert.throws(
      () => validate(Buffer.from(claimed), { bytes: LIMIT }, { ...ANY_TIME, type }),
      (err: unknown) => err instanceof Refused && err.errorCode === ErrorCode.INVALID_TIMESTAMP && err.recordErrors.length === 2,
    );
  }
});

test("a stored batch with its max timestamp unset is found by its records' times (ListOffsets by time)", () => {
  const batch = unsetMaxTimestamp(buildBatch([{ value: Buffer.from('a') }, { value: Buffer.from('b'), timestampDelta: 50 }], { baseTimestamp: 1000 }));
  assert.deepEqual(firstRecordAtOrAfter(batch, 1020), { offset: 1, timestamp: 1050 });
  assert.equal(firstRecordAtOrAfter(batch, 1051), undefined);
});
