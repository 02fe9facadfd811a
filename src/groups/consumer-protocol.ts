/**
 * What the coordinator reads and writes of the consumer protocol ("consumer" protocol type): the
 * topics a member's subscription names, what it says it owns, and the assignments a classic member
 * of a consumer group is given. Every version of ConsumerProtocolSubscription starts with the v0
 * layout (version, topics, user data), then adds owned partitions (v1), generation (v2) and rack
 * (v3); ConsumerProtocolAssignment keeps one layout in every version.
 */
import { ProtocolError } from '../protocol/primitives/errors.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';

export const CONSUMER_PROTOCOL_TYPE = 'consumer';

/** The subscribed topics, or undefined when the metadata does not follow the schema. */
export function subscriptionTopics(metadata: Buffer): string[] | undefined {
  try {
    const r = new Reader(metadata);
    if (r.readInt16() < 0) return undefined;
    const count = r.readArrayLength();
    if (count < 0) return undefined;
    const topics = Array.from({ length: count }, () => r.readString());
    r.readNullableBytes();
    return topics;
  } catch (err) {
    if (err instanceof ProtocolError) return undefined;
    throw err;
  }
}

/** The partitions a member's assignment gives it, by topic, or undefined when it does not follow the schema (or is empty). */
export function assignedPartitions(assignment: Buffer): { topic: string; partitions: number[] }[] | undefined {
  if (assignment.length === 0) return undefined;
  try {
    const r = new Reader(assignment);
    if (r.readInt16() < 0) return undefined;
    const count = r.readArrayLength();
    if (count < 0) return undefined;
    return Array.from({ length: count }, () => ({
      topic: r.readString(),
      partitions: Array.from({ length: Math.max(0, r.readArrayLength()) }, () => r.readInt32()),
    }));
  } catch (err) {
    if (err instanceof ProtocolError) return undefined;
    throw err;
  }
}

export interface TopicPartitionsByName {
  readonly topic: string;
  readonly partitions: readonly number[];
}

/** A ConsumerProtocolSubscription read whole, as Kafka's coordinator reads a classic member's in a consumer group. */
export interface Subscription {
  readonly topics: string[];
  /** Empty before v1. */
  readonly ownedPartitions: TopicPartitionsByName[];
  readonly rackId: string | null;
}

/** The subscription, or undefined when the metadata does not follow the schema. */
export function readSubscription(metadata: Buffer): Subscription | undefined {
  try {
    const r = new Reader(metadata);
    const version = r.readInt16();
    const count = r.readArrayLength();
    if (version < 0 || count < 0) return undefined;
    const topics = Array.from({ length: count }, () => r.readString());
    r.readNullableBytes();
    let ownedPartitions: TopicPartitionsByName[] = [];
    if (version >= 1 && r.remaining > 0) ownedPartitions = readTopicPartitions(r);
    if (version >= 2 && r.remaining > 0) r.readInt32();
    const rackId = version >= 3 && r.remaining > 0 ? r.readNullableString() : null;
    return { topics, ownedPartitions, rackId };
  } catch (err) {
    if (err instanceof ProtocolError) return undefined;
    throw err;
  }
}

/** The version a member's metadata names, which its assignment is written in (Kafka's `ConsumerProtocol.deserializeVersion`). */
export function protocolVersion(metadata: Buffer): number {
  return metadata.length >= 2 ? Math.max(0, metadata.readInt16BE(0)) : 0;
}

/** A ConsumerProtocolAssignment of these partitions, without user data. */
export function writeAssignment(version: number, partitions: readonly TopicPartitionsByName[]): Buffer {
  const w = new Writer(64);
  w.writeInt16(version);
  w.writeArrayLength(partitions.length);
  for (const t of partitions) {
    w.writeString(t.topic);
    w.writeArrayLength(t.partitions.length);
    for (const p of t.partitions) w.writeInt32(p);
  }
  w.writeNullableBytes(null);
  return w.finish();
}

/** Whether an assignment carries user data, which a server-side assignment would lose (Kafka refuses to upgrade such a group). */
export function assignmentHasUserData(assignment: Buffer): boolean {
  if (assignment.length === 0) return false;
  try {
    const r = new Reader(assignment);
    r.readInt16();
    readTopicPartitions(r);
    return (r.readNullableBytes()?.length ?? 0) > 0;
  } catch (err) {
    if (err instanceof ProtocolError) return false;
    throw err;
  }
}

function readTopicPartitions(r: Reader): TopicPartitionsByName[] {
  return Array.from({ length: Math.max(0, r.readArrayLength()) }, () => ({
    topic: r.readString(),
    partitions: Array.from({ length: Math.max(0, r.readArrayLength()) }, () => r.readInt32()),
  }));
}
