/** The consumer protocol's embedded bytes as a classic member's client writes them, for wire tests. */
import { Writer } from '../../src/protocol/primitives/writer.js';

/** ConsumerProtocolSubscription of one topic: v0, or v1 with what the member owns. */
export function subscription(topic: string, owned?: readonly number[]): Buffer {
  const w = new Writer(64);
  w.writeInt16(owned === undefined ? 0 : 1);
  w.writeArrayLength(1);
  w.writeString(topic);
  w.writeNullableBytes(null);
  if (owned !== undefined) {
    w.writeArrayLength(1);
    w.writeString(topic);
    w.writeArrayLength(owned.length);
    for (const p of owned) w.writeInt32(p);
  }
  return w.finish();
}

/** ConsumerProtocolAssignment v0 of these partitions of one topic, as a leader writes it. */
export function assignment(topic: string, partitions: readonly number[]): Buffer {
  const w = new Writer(64);
  w.writeInt16(0);
  w.writeArrayLength(1);
  w.writeString(topic);
  w.writeArrayLength(partitions.length);
  for (const p of partitions) w.writeInt32(p);
  w.writeNullableBytes(null);
  return w.finish();
}
