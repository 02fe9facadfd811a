/**
 * A record of a coordinator's internal topic (`__consumer_offsets`, `__transaction_state`) as
 * Kafka's `CoordinatorRecordSerde` lays it out: the key is the record type (an int16, the
 * `coordinator-key` schema's apiKey) then the key struct at version 0; the value is its version
 * (an int16) then the value struct at that version; a null value is a tombstone.
 */
import { ProtocolError } from './primitives/errors.js';
import { Reader } from './primitives/reader.js';
import { Writer } from './primitives/writer.js';
import type { MessageCodec } from './messages/codec.js';

/** The key of a record whose type is `codec`'s apiKey. */
export function encodeCoordinatorKey<T>(codec: MessageCodec<T>, key: T): Buffer {
  const w = new Writer(64);
  w.writeInt16(codec.apiKey);
  codec.write(w, 0, key);
  return w.finish();
}

/** A record's value: `version` then the struct at that version. */
export function encodeCoordinatorValue<T>(codec: MessageCodec<T>, version: number, value: T): Buffer {
  const w = new Writer(64);
  w.writeInt16(version);
  codec.write(w, version, value);
  return w.finish();
}

/** The record type a key starts with; throws ProtocolError if the key is too short to hold one. */
export function coordinatorRecordType(key: Buffer): number {
  if (key.length < 2) throw new ProtocolError(`a coordinator record's key of ${key.length} bytes holds no record type`);
  return key.readInt16BE(0);
}

/** The key struct after the record type; throws ProtocolError if it does not decode whole. */
export function decodeCoordinatorKey<T>(codec: MessageCodec<T>, key: Buffer): T {
  const r = new Reader(key, 2);
  return whole(r, codec.read(r, 0));
}

/** A value's version and struct; throws ProtocolError if the version is not the codec's or the struct does not decode whole. */
export function decodeCoordinatorValue<T>(codec: MessageCodec<T>, value: Buffer): { version: number; value: T } {
  if (value.length < 2) throw new ProtocolError(`a coordinator record's value of ${value.length} bytes holds no version`);
  const version = value.readInt16BE(0);
  const r = new Reader(value, 2);
  return { version, value: whole(r, codec.read(r, version)) };
}

function whole<T>(r: Reader, decoded: T): T {
  if (r.remaining !== 0) throw new ProtocolError(`${r.remaining} bytes left after a coordinator record's struct`);
  return decoded;
}
