/** fast-check arbitraries of any message a codec's schema describes, and what reading one back at a version gives. */
import fc from 'fast-check';
import type { FieldSchema, StructSchema, VersionRange } from '../../src/protocol/messages/index.js';
import { defaultOf } from '../../src/protocol/message-defaults.js';

type Obj = Record<string, unknown>;

const inRange = (r: VersionRange | null | undefined, v: number): boolean => r != null && v >= r[0] && v <= r[1];

const uuidArb = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => {
  const h = Buffer.from(b).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
});
const bytesArb = fc.uint8Array({ maxLength: 12 }).map((a) => Buffer.from(a));

const PRIMITIVE_ARBS: Record<string, fc.Arbitrary<unknown>> = {
  bool: fc.boolean(),
  int8: fc.integer({ min: -128, max: 127 }),
  int16: fc.integer({ min: -32768, max: 32767 }),
  uint16: fc.integer({ min: 0, max: 65535 }),
  int32: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  uint32: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  int64: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  float64: fc.double(),
  string: fc.string({ unit: 'grapheme', maxLength: 8 }),
  bytes: bytesArb,
  records: bytesArb,
  uuid: uuidArb,
};

/**
 * Any value of the field's type; null only where version v allows it. Fields absent at v get
 * random values too, which the writer must drop. `primitives` replaces the values of the types it names.
 */
function fieldArb(f: FieldSchema, v: number, depth: number, primitives: Primitives): fc.Arbitrary<unknown> {
  const present = inRange(f.versions, v);
  const nullable = present ? inRange(f.nullable, v) : f.nullable !== undefined || f.default === null || f.type === 'records';
  const elem = typeof f.type === 'string' ? (primitives[f.type] ?? PRIMITIVE_ARBS[f.type]!) : structArb(f.type, v, depth + 1, primitives);
  let arb: fc.Arbitrary<unknown> = f.array ? fc.array(elem, { maxLength: depth < 2 ? 3 : 1 }) : elem;
  // A tagged field equal to its default is omitted; make that case common.
  if (f.tag !== undefined) arb = fc.oneof(arb, fc.constant(defaultOf(f)));
  return nullable ? fc.option(arb, { nil: null }) : arb;
}

/** Arbitraries of some primitive types, in place of the any-value ones. */
export type Primitives = Readonly<Partial<Record<string, fc.Arbitrary<unknown>>>>;

export function structArb(s: StructSchema, v: number, depth = 0, primitives: Primitives = {}): fc.Arbitrary<Obj> {
  return fc.record(Object.fromEntries(s.fields.map((f) => [f.name, fieldArb(f, v, depth, primitives)])), { noNullPrototype: true });
}

/** What reading back at version v must give: absent fields revert to their defaults. */
export function expected(s: StructSchema, value: Obj, v: number): Obj {
  const out: Obj = {};
  for (const f of s.fields) {
    const x = value[f.name];
    if (!inRange(f.versions, v)) out[f.name] = defaultOf(f);
    else if (typeof f.type === 'string' || x === null) out[f.name] = x;
    else {
      const struct = f.type;
      out[f.name] = f.array ? (x as Obj[]).map((e) => expected(struct, e, v)) : expected(struct, x as Obj, v);
    }
  }
  return out;
}
