/**
 * Committed offsets as records of `__consumer_offsets`, in Kafka's format: one record per group,
 * topic and partition, keyed by Kafka's OffsetCommitKey; a deleted offset is a tombstone of its key.
 */
import {
  coordinatorRecordType,
  decodeCoordinatorKey,
  decodeCoordinatorValue,
  encodeCoordinatorKey,
  encodeCoordinatorValue,
} from '../protocol/coordinator-record.js';
import { OffsetCommitKey, OffsetCommitValue } from '../protocol/messages/coordinator-records.js';
import type { NewRecord } from '../protocol/stored-records.js';
import type { StoredOffset } from './offset-state.js';

/**
 * The value version written: Kafka 4.0's `GroupCoordinatorRecordHelpers.offsetCommitValueVersion`
 * without an expire timestamp (brook keeps none). Kafka 4.1 moved to 4, adding the topic id, which
 * released readers of the topic such as Burrow do not read (docs/departures.md).
 */
const VALUE_VERSION = 3;
/** Record types of an offset commit: Kafka's legacy key (0) has the same layout as OffsetCommitKey (1). */
const LEGACY_OFFSET_COMMIT = 0;

export function commitRecord(groupId: string, o: StoredOffset): NewRecord {
  return {
    key: encodeCoordinatorKey(OffsetCommitKey, { group: groupId, topic: o.topic, partition: o.partition }),
    value: encodeCoordinatorValue(OffsetCommitValue, VALUE_VERSION, {
      offset: o.offset,
      leaderEpoch: o.leaderEpoch,
      metadata: o.metadata,
      commitTimestamp: BigInt(o.commitTimestamp),
      expireTimestamp: -1n,
    }),
    headers: [],
  };
}

export function tombstoneRecord(groupId: string, topic: string, partition: number): NewRecord {
  return { key: encodeCoordinatorKey(OffsetCommitKey, { group: groupId, topic, partition }), value: null, headers: [] };
}

/** What a record of the topic says of a committed offset: its new value, or undefined for a tombstone. */
export interface OffsetRecord {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly committed: StoredOffset | undefined;
}

/**
 * The offset record a key and value hold; undefined for a record of another type (one brook does
 * not keep, such as a share group's). Throws ProtocolError for a record that does not decode.
 */
export function readOffsetRecord(key: Buffer, value: Buffer | null): OffsetRecord | undefined {
  const type = coordinatorRecordType(key);
  if (type !== OffsetCommitKey.apiKey && type !== LEGACY_OFFSET_COMMIT) return undefined;
  const { group: groupId, topic, partition } = decodeCoordinatorKey(OffsetCommitKey, key);
  if (value === null) return { groupId, topic, partition, committed: undefined };
  const { value: v } = decodeCoordinatorValue(OffsetCommitValue, value);
  const committed = { topic, partition, offset: v.offset, leaderEpoch: v.leaderEpoch, metadata: v.metadata, commitTimestamp: Number(v.commitTimestamp) };
  return { groupId, topic, partition, committed };
}
