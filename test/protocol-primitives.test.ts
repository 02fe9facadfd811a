import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ProtocolError } from '../src/protocol/primitives/errors.js';
import { Reader, ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { Writer } from '../src/protocol/primitives/writer.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Writes with write(), reads back with read(), and checks the value and that every byte was consumed. */
function roundTrip<T>(value: T, write: (w: Writer, v: T) => void, read: (r: Reader) => T): Buffer {
  const w = new Writer(1); // tiny initial capacity exercises growth
  write(w, value);
  const buf = w.finish();
  const r = new Reader(buf);
  assert.deepEqual(read(r), value);
  assert.equal(r.remaining, 0);
  return buf;
}

const hex = (...bytes: number[]): Buffer => Buffer.from(bytes);
const uuidArb = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => {
  const h = Buffer.from(b).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
});
const textArb = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ maxLength: 200 }));
const bytesArb: fc.Arbitrary<Buffer> = fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a));

/** fast-check integers biased towards the edges of each varint byte width. */
function edgy(max: number): fc.Arbitrary<number> {
  const edges = [0, 1];
  for (let b = 7; 2 ** b <= max; b += 7) edges.push(2 ** b - 1, 2 ** b);
  edges.push(max);
  return fc.oneof(fc.constantFrom(...edges), fc.integer({ min: 0, max }));
}

test('fixed-width integers, floats, booleans and uuids round trip', () => {
  fc.assert(
    fc.property(
      fc.record(
        {
          i8: fc.integer({ min: -128, max: 127 }),
          i16: fc.integer({ min: -32768, max: 32767 }),
          u16: fc.integer({ min: 0, max: 65535 }),
          i32: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
          u32: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          i64: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
          f64: fc.double(),
          bool: fc.boolean(),
          uuid: uuidArb,
        },
        { noNullPrototype: true },
      ),
      (v) => {
        roundTrip(
          v,
          (w, x) => {
            w.writeInt8(x.i8);
            w.writeInt16(x.i16);
            w.writeUint16(x.u16);
            w.writeInt32(x.i32);
            w.writeUint32(x.u32);
            w.writeInt64(x.i64);
            w.writeFloat64(x.f64);
            w.writeBoolean(x.bool);
            w.writeUuid(x.uuid);
          },
          (r) => ({
            i8: r.readInt8(),
            i16: r.readInt16(),
            u16: r.readUint16(),
            i32: r.readInt32(),
            u32: r.readUint32(),
            i64: r.readInt64(),
            f64: r.readFloat64(),
            bool: r.readBoolean(),
            uuid: r.readUuid(),
          }),
        );
      },
    ),
  );
});

test('unsigned varints round trip, including every byte-width edge', () => {
  fc.assert(
    fc.property(edgy(2 ** 32 - 1), (n) => {
      const buf = roundTrip(
        n,
        (w, x) => w.writeUnsignedVarint(x),
        (r) => r.readUnsignedVarint(),
      );
      assert.equal(buf.length, n === 0 ? 1 : Math.ceil(Math.log2(n + 1) / 7));
    }),
  );
});

test('zigzag varints and varlongs round trip', () => {
  const int32 = fc.oneof(fc.constantFrom(0, -1, 1, -64, 63, 64, -65, 2 ** 31 - 1, -(2 ** 31)), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));
  fc.assert(
    fc.property(
      int32,
      (n) =>
        void roundTrip(
          n,
          (w, x) => w.writeVarint(x),
          (r) => r.readVarint(),
        ),
    ),
  );
  const edges = [0n, -1n, 1n, INT64_MIN, INT64_MAX];
  for (let b = 6n; b < 64n; b += 7n) edges.push(2n ** b - 1n, 2n ** b, -(2n ** b), -(2n ** b) - 1n);
  const int64 = fc.oneof(fc.constantFrom(...edges), fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), fc.bigInt({ min: -(2n ** 50n), max: 2n ** 50n }));
  fc.assert(
    fc.property(
      int64,
      (n) =>
        void roundTrip(
          n,
          (w, x) => w.writeVarlong(x),
          (r) => r.readVarlong(),
        ),
    ),
  );
});

test('varint encodings match the Kafka protocol guide', () => {
  const enc = (f: (w: Writer) => void): Buffer => {
    const w = new Writer();
    f(w);
    return w.finish();
  };
  assert.deepEqual(
    enc((w) => w.writeUnsignedVarint(300)),
    hex(0xac, 0x02),
  );
  assert.deepEqual(
    enc((w) => w.writeUnsignedVarint(2 ** 32 - 1)),
    hex(0xff, 0xff, 0xff, 0xff, 0x0f),
  );
  assert.deepEqual(
    enc((w) => w.writeVarint(-1)),
    hex(0x01),
  );
  assert.deepEqual(
    enc((w) => w.writeVarint(1)),
    hex(0x02),
  );
  assert.deepEqual(
    enc((w) => w.writeVarint(-64)),
    hex(0x7f),
  );
  assert.deepEqual(
    enc((w) => w.writeVarint(64)),
    hex(0x80, 0x01),
  );
  assert.deepEqual(
    enc((w) => w.writeVarlong(INT64_MIN)),
    hex(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
  );
  assert.deepEqual(
    enc((w) => w.writeVarlong(INT64_MAX)),
    hex(0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
  );
  assert.deepEqual(
    enc((w) => w.writeCompactString('hi')),
    hex(0x03, 0x68, 0x69),
  );
  assert.deepEqual(
    enc((w) => w.writeNullableString(null)),
    hex(0xff, 0xff),
  );
  assert.deepEqual(
    enc((w) => w.writeCompactNullableBytes(null)),
    hex(0x00),
  );
  assert.deepEqual(
    enc((w) => w.writeUuid(ZERO_UUID)),
    Buffer.alloc(16),
  );
});

test('strings and bytes round trip in every encoding', () => {
  fc.assert(
    fc.property(textArb, fc.option(textArb), bytesArb, fc.option(bytesArb), (s, ns, b, nb) => {
      roundTrip(
        s,
        (w, x) => w.writeString(x),
        (r) => r.readString(),
      );
      roundTrip(
        s,
        (w, x) => w.writeCompactString(x),
        (r) => r.readCompactString(),
      );
      roundTrip(
        ns,
        (w, x) => w.writeNullableString(x),
        (r) => r.readNullableString(),
      );
      roundTrip(
        ns,
        (w, x) => w.writeCompactNullableString(x),
        (r) => r.readCompactNullableString(),
      );
      roundTrip(
        b,
        (w, x) => w.writeBytes(x),
        (r) => r.readBytes(),
      );
      roundTrip(
        b,
        (w, x) => w.writeCompactBytes(x),
        (r) => r.readCompactBytes(),
      );
      roundTrip(
        nb,
        (w, x) => w.writeNullableBytes(x),
        (r) => r.readNullableBytes(),
      );
      roundTrip(
        nb,
        (w, x) => w.writeCompactNullableBytes(x),
        (r) => r.readCompactNullableBytes(),
      );
    }),
  );
});

test('bytes are slices of the input, not copies', () => {
  const buf = hex(0, 0, 0, 2, 7, 8);
  const b = new Reader(buf).readBytes();
  buf[4] = 9;
  assert.equal(b[0], 9);
});

test('tagged field sections: known tags go to the callback, unknown ones are skipped', () => {
  const w = new Writer();
  w.writeUnsignedVarint(3);
  for (const [tag, value] of [
    [1, 'one'],
    [5, 'unknown'],
    [7, 'x'.repeat(200)],
  ] as const) {
    w.writeUnsignedVarint(tag);
    const start = w.beginSized();
    w.writeCompactString(value);
    w.endSized(start);
  }
  w.writeInt8(42);
  const r = new Reader(w.finish());
  const seen: Record<number, string> = {};
  r.readTaggedFields(seen, 0, (rr, tag, ctx) => {
    if (tag === 5) return false;
    ctx[tag] = rr.readCompactString();
    return true;
  });
  assert.deepEqual(seen, { 1: 'one', 7: 'x'.repeat(200) });
  assert.equal(r.readInt8(), 42);
});

test('a tagged field whose value overruns its declared size is rejected', () => {
  const r = new Reader(hex(1, 0, 1, 0, 0, 0, 5));
  assert.throws(() => r.readTaggedFields(null, 0, (rr) => (rr.readInt32(), true)), ProtocolError);
});

test('endSized moves the body when the size needs a multi-byte varint', () => {
  fc.assert(
    fc.property(bytesArb, fc.integer({ min: 0, max: 20000 }), (prefix, size) => {
      const w = new Writer(4);
      w.writeBuffer(prefix);
      const start = w.beginSized();
      w.writeBuffer(Buffer.alloc(size, 0xab));
      w.endSized(start);
      w.writeInt8(-1);
      const r = new Reader(w.finish(), prefix.length);
      const n = r.readUnsignedVarint();
      assert.equal(n, size);
      r.skip(n);
      assert.equal(r.readInt8(), -1);
      assert.equal(r.remaining, 0);
    }),
  );
});

test('writer: finish detaches its bytes and writeInt32At patches a size prefix', () => {
  const w = new Writer(2);
  w.writeInt32(0);
  w.writeString('abc');
  w.writeInt32At(0, w.length - 4);
  const first = w.finish();
  w.writeInt32(7);
  const second = w.finish();
  assert.deepEqual(first, hex(0, 0, 0, 5, 0, 3, 0x61, 0x62, 0x63));
  assert.deepEqual(second, hex(0, 0, 0, 7));
});

test('malformed input throws ProtocolError', () => {
  const bad: [string, Buffer, (r: Reader) => unknown][] = [
    ['truncated int32', hex(0, 0, 1), (r) => r.readInt32()],
    ['truncated int64', hex(0, 0, 0, 0, 0, 0, 0), (r) => r.readInt64()],
    ['truncated uuid', Buffer.alloc(15), (r) => r.readUuid()],
    ['empty boolean', hex(), (r) => r.readBoolean()],
    ['unterminated varint', hex(0x80, 0x80), (r) => r.readUnsignedVarint()],
    ['varint of 6 bytes', hex(0x80, 0x80, 0x80, 0x80, 0x80, 0x01), (r) => r.readUnsignedVarint()],
    ['varint over 32 bits', hex(0xff, 0xff, 0xff, 0xff, 0x1f), (r) => r.readUnsignedVarint()],
    ['varlong of 11 bytes', hex(...Array<number>(10).fill(0x80), 0x01), (r) => r.readVarlong()],
    ['varlong over 64 bits', hex(...Array<number>(9).fill(0xff), 0x02), (r) => r.readVarlong()],
    ['null non-nullable string', hex(0xff, 0xff), (r) => r.readString()],
    ['string length -2', hex(0xff, 0xfe), (r) => r.readNullableString()],
    ['string past end', hex(0, 5, 0x61), (r) => r.readString()],
    ['null compact string', hex(0), (r) => r.readCompactString()],
    ['compact string past end', hex(4, 0x61), (r) => r.readCompactNullableString()],
    ['compact string over 32767 bytes', hex(0x81, 0x80, 0x02), (r) => r.readCompactString()],
    ['null non-nullable bytes', hex(0xff, 0xff, 0xff, 0xff), (r) => r.readBytes()],
    ['bytes length -2', hex(0xff, 0xff, 0xff, 0xfe), (r) => r.readNullableBytes()],
    ['bytes past end', hex(0x7f, 0xff, 0xff, 0xff, 0), (r) => r.readBytes()],
    ['compact bytes past end', hex(0xff, 0xff, 0xff, 0xff, 0x0f), (r) => r.readCompactBytes()],
    ['array length -2', hex(0xff, 0xff, 0xff, 0xfe), (r) => r.readArrayLength()],
    ['array longer than the input', hex(0, 0, 0, 9, 1, 2), (r) => r.readArrayLength()],
    ['compact array longer than the input', hex(0xff, 0xff, 0xff, 0xff, 0x0f), (r) => r.readCompactArrayLength()],
    ['tagged field past end', hex(1, 0, 5, 1), (r) => r.skipTaggedFields()],
    ['skip past end', hex(1), (r) => r.skip(2)],
  ];
  for (const [what, buf, read] of bad) {
    assert.throws(() => read(new Reader(buf)), ProtocolError, what);
  }
  assert.throws(() => new Reader(hex(1, 2), 3), ProtocolError);
  // A reader bounded to a frame must not read the bytes after it.
  assert.throws(() => new Reader(hex(0, 0, 0, 1, 2), 0, 3).readInt32(), ProtocolError);
});

test('random bytes fed to every reader method raise nothing but ProtocolError', () => {
  const methods = [
    'readInt8',
    'readInt16',
    'readUint16',
    'readInt32',
    'readUint32',
    'readInt64',
    'readFloat64',
    'readBoolean',
    'readUuid',
    'readUnsignedVarint',
    'readVarint',
    'readVarlong',
    'readString',
    'readNullableString',
    'readCompactString',
    'readCompactNullableString',
    'readBytes',
    'readNullableBytes',
    'readCompactBytes',
    'readCompactNullableBytes',
    'readArrayLength',
    'readCompactArrayLength',
    'skipTaggedFields',
  ] as const;
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 24 }), fc.array(fc.constantFrom(...methods), { maxLength: 6 }), (bytes, calls) => {
      const r = new Reader(Buffer.from(bytes));
      try {
        for (const m of calls) r[m]();
      } catch (e) {
        if (!(e instanceof ProtocolError)) throw e;
      }
    }),
    { numRuns: 2000 },
  );
});

test('writer rejects values it cannot encode with ProtocolError', () => {
  const w = new Writer();
  assert.throws(() => w.writeUuid('not-a-uuid'), ProtocolError);
  assert.throws(() => w.writeUuid('0000000g-0000-0000-0000-000000000000'), ProtocolError);
  assert.throws(() => w.writeString('x'.repeat(40000)), ProtocolError);
  assert.throws(() => w.writeCompactString('é'.repeat(20000)), ProtocolError);
  assert.throws(() => w.writeUnsignedVarint(-1), ProtocolError);
  assert.throws(() => w.writeUnsignedVarint(2 ** 32), ProtocolError);
});

/** A writer step: what it writes is the same whichever the writer. */
type Step = { kind: 'int32'; v: number } | { kind: 'string'; v: string } | { kind: 'bytes'; v: Buffer } | { kind: 'sized'; v: Buffer };

function play(w: Writer, steps: readonly Step[]): void {
  w.writeInt32(0); // a size prefix, patched at the end
  for (const step of steps) {
    if (step.kind === 'int32') w.writeInt32(step.v);
    else if (step.kind === 'string') w.writeCompactString(step.v);
    else if (step.kind === 'bytes') w.writeCompactNullableBytes(step.v);
    else {
      const start = w.beginSized();
      w.writeCompactBytes(step.v);
      w.endSized(start);
    }
  }
  w.writeInt32At(0, w.length - 4);
}

test('property: a gathering writer hands over the same bytes, referencing large byte fields instead of copying them', () => {
  const bytes = fc.integer({ min: 0, max: 3000 }).map((n) => Buffer.alloc(n, n % 256));
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.integer().map((v) => ({ kind: 'int32' as const, v })),
    fc.string({ maxLength: 40 }).map((v) => ({ kind: 'string' as const, v })),
    bytes.map((v) => ({ kind: 'bytes' as const, v })),
    bytes.map((v) => ({ kind: 'sized' as const, v })),
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 12 }), fc.integer({ min: 1, max: 2000 }), (steps, gatherFrom) => {
      const plain = new Writer(16);
      play(plain, steps);
      const expected = plain.finish();
      const gathering = new Writer(16, gatherFrom);
      play(gathering, steps);
      const out = gathering.finishPieces();
      const pieces = Buffer.isBuffer(out) ? [out] : out;
      assert.deepEqual(Buffer.concat(pieces), expected);
      for (const s of steps) {
        if (s.kind !== 'bytes' || s.v.length < gatherFrom) continue;
        assert.ok(pieces.includes(s.v), `a ${s.v.length}-byte field is sent as it is`);
      }
      assert.equal(Buffer.isBuffer(out), !steps.some((s) => s.kind === 'bytes' && s.v.length >= gatherFrom), 'one buffer unless something was gathered');
    }),
  );
});
