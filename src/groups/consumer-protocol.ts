/**
 * What the coordinator reads of the consumer protocol ("consumer" protocol type): the topics a
 * member's subscription names. Every version of ConsumerProtocolSubscription starts with the v0
 * layout (version, topics, user data), so that prefix is all Kafka's coordinator reads too.
 */
import { ProtocolError } from '../protocol/primitives/errors.js';
import { Reader } from '../protocol/primitives/reader.js';

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
