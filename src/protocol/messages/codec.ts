import { ProtocolError } from '../primitives/errors.js';
import type { Reader } from '../primitives/reader.js';
import type { Writer } from '../primitives/writer.js';

/** Inclusive version range; a field absent from every version ("none") has none. */
export type VersionRange = readonly [min: number, max: number];

export type PrimitiveType = 'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'float64' | 'string' | 'bytes' | 'records' | 'uuid';

/** Compact description of a field, emitted next to each codec for generic tooling (tests, debugging). */
export interface FieldSchema {
  readonly name: string;
  readonly type: PrimitiveType | StructSchema;
  readonly array?: true;
  readonly versions: VersionRange | null;
  readonly nullable?: VersionRange;
  readonly tag?: number;
  readonly taggedVersions?: VersionRange;
  /** Only set when the field overrides the message's flexible versions. */
  readonly flexibleVersions?: VersionRange | null;
  /** Only set when it differs from the type's zero value (0, false, "", empty, zero uuid, null records). */
  readonly default?: number | bigint | boolean | string | null;
}

export interface StructSchema {
  readonly name: string;
  readonly fields: readonly FieldSchema[];
}

export interface MessageCodec<T> {
  readonly name: string;
  /** -1 for headers. */
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** -1 when no version is flexible. */
  readonly flexibleMinVersion: number;
  readonly schema: StructSchema;
  read(r: Reader, version: number): T;
  write(w: Writer, version: number, value: T): void;
}

/** One API of the generated table: its codecs and the versions Kafka's schemas define. */
export interface ApiSchema {
  readonly name: string;
  readonly apiKey: number;
  readonly request: MessageCodec<unknown>;
  readonly response: MessageCodec<unknown>;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** -1 when no version is flexible. */
  readonly flexibleMinVersion: number;
}

// ---- runtime helpers shared by the generated codecs ----

export type ElementReader<T> = (r: Reader, version: number, flexible: boolean) => T;
export type ElementWriter<T> = (w: Writer, version: number, value: T, flexible: boolean) => void;

export function readNullableArray<T>(r: Reader, version: number, flexible: boolean, elem: ElementReader<T>): T[] | null {
  const n = flexible ? r.readCompactArrayLength() : r.readArrayLength();
  if (n < 0) return null;
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(elem(r, version, flexible));
  return out;
}

export function readArray<T>(r: Reader, version: number, flexible: boolean, elem: ElementReader<T>): T[] {
  const out = readNullableArray(r, version, flexible, elem);
  if (out === null) throw new ProtocolError('non-nullable array is null');
  return out;
}

export function writeArray<T>(w: Writer, version: number, flexible: boolean, value: readonly T[] | null, elem: ElementWriter<T>): void {
  const n = value === null ? -1 : value.length;
  if (flexible) w.writeCompactArrayLength(n);
  else w.writeArrayLength(n);
  if (value !== null) for (let i = 0; i < value.length; i++) elem(w, version, value[i]!, flexible);
}

/** For a field typed nullable that is not nullable in the version being written. */
export function nonNull(field: string): never {
  throw new ProtocolError(`field ${field} is not nullable in this version`);
}

export const readInt8: ElementReader<number> = (r) => r.readInt8();
export const readInt16: ElementReader<number> = (r) => r.readInt16();
export const readUint16: ElementReader<number> = (r) => r.readUint16();
export const readInt32: ElementReader<number> = (r) => r.readInt32();
export const readUint32: ElementReader<number> = (r) => r.readUint32();
export const readInt64: ElementReader<bigint> = (r) => r.readInt64();
export const readFloat64: ElementReader<number> = (r) => r.readFloat64();
export const readBoolean: ElementReader<boolean> = (r) => r.readBoolean();
export const readUuid: ElementReader<string> = (r) => r.readUuid();
export const readString: ElementReader<string> = (r, _v, flexible) => (flexible ? r.readCompactString() : r.readString());
export const readBytes: ElementReader<Buffer> = (r, _v, flexible) => (flexible ? r.readCompactBytes() : r.readBytes());

export const writeInt8: ElementWriter<number> = (w, _v, x) => w.writeInt8(x);
export const writeInt16: ElementWriter<number> = (w, _v, x) => w.writeInt16(x);
export const writeUint16: ElementWriter<number> = (w, _v, x) => w.writeUint16(x);
export const writeInt32: ElementWriter<number> = (w, _v, x) => w.writeInt32(x);
export const writeUint32: ElementWriter<number> = (w, _v, x) => w.writeUint32(x);
export const writeInt64: ElementWriter<bigint> = (w, _v, x) => w.writeInt64(x);
export const writeFloat64: ElementWriter<number> = (w, _v, x) => w.writeFloat64(x);
export const writeBoolean: ElementWriter<boolean> = (w, _v, x) => w.writeBoolean(x);
export const writeUuid: ElementWriter<string> = (w, _v, x) => w.writeUuid(x);
export const writeString: ElementWriter<string> = (w, _v, x, flexible) => (flexible ? w.writeCompactString(x) : w.writeString(x));
export const writeBytes: ElementWriter<Uint8Array> = (w, _v, x, flexible) => (flexible ? w.writeCompactBytes(x) : w.writeBytes(x));

export function checkVersion(name: string, version: number, min: number, max: number): number {
  if (!Number.isInteger(version) || version < min || version > max) {
    throw new ProtocolError(`${name} version ${version} is outside ${min}-${max}`);
  }
  return version;
}
