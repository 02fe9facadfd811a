/** Values built from a codec's schema descriptor: each field at its default, as Kafka's generated messages start. */
import { ZERO_UUID } from '../../src/protocol/primitives/reader.js';
import type { FieldSchema, StructSchema } from '../../src/protocol/messages/codec.js';

export type Obj = Record<string, unknown>;

export function defaultOf(f: FieldSchema): unknown {
  if ('default' in f) return f.default;
  if (f.array) return [];
  if (typeof f.type !== 'string') return defaultStruct(f.type);
  switch (f.type) {
    case 'bool': return false;
    case 'int64': return 0n;
    case 'string': return '';
    case 'bytes': return Buffer.alloc(0);
    case 'records': return null;
    case 'uuid': return ZERO_UUID;
    default: return 0;
  }
}

export const defaultStruct = (s: StructSchema): Obj => Object.fromEntries(s.fields.map((f) => [f.name, defaultOf(f)]));
