/** A message's value with every field at its schema default, for answers built without a handler. */
import type { FieldSchema, StructSchema } from './messages/codec.js';
import { ZERO_UUID } from './primitives/reader.js';

export function defaultStruct(schema: StructSchema): Record<string, unknown> {
  return Object.fromEntries(schema.fields.map((f) => [f.name, defaultOf(f)]));
}

export function defaultOf(f: FieldSchema): unknown {
  if ('default' in f) return f.default;
  if (f.array) return [];
  if (typeof f.type !== 'string') return defaultStruct(f.type);
  switch (f.type) {
    case 'bool':
      return false;
    case 'int64':
      return 0n;
    case 'string':
      return '';
    case 'bytes':
      return Buffer.alloc(0);
    case 'records':
      return null;
    case 'uuid':
      return ZERO_UUID;
    default:
      return 0;
  }
}
