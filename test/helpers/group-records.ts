/**
 * Group records of `__consumer_offsets` read as a tool of Kafka's ecosystem would: plain Fetch
 * requests and a decoder written here from Kafka's schema JSON (GroupMetadataKey/Value and the
 * ConsumerGroup* records of Kafka 4.3), not brook's codecs.
 */
import assert from 'node:assert/strict';
import { readStoredRecords } from '../../src/protocol/stored-records.js';
import { kafkaPartitionFor, SchemaReader } from './kafka-tools.js';
import type { WireClient } from './wire-client.js';
import { fetchAllBatches } from './wire-fetch.js';

const OFFSETS = '__consumer_offsets';

/** A group record: its type, group, member (for a member's record) and value, null for a tombstone. */
export interface GroupRecord {
  readonly type: number;
  readonly group: string;
  readonly member: string | undefined;
  readonly value: unknown;
}

export interface ClassicMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeout: number;
  sessionTimeout: number;
  subscription: Buffer;
  assignment: Buffer;
}

export interface ClassicValue {
  version: number;
  protocolType: string;
  generation: number;
  protocol: string | null;
  leader: string | null;
  currentStateTimestamp: bigint;
  members: ClassicMember[];
}

export interface TopicPartitions {
  topicId: string;
  partitions: number[];
  assignmentEpochs: number[] | null;
}

export interface CurrentAssignment {
  memberEpoch: number;
  previousMemberEpoch: number;
  state: number;
  assigned: TopicPartitions[];
  pendingRevocation: TopicPartitions[];
}

function nullableString(r: SchemaReader, flexible: boolean): string | null {
  if (flexible) {
    const length = r.uvarint() - 1;
    return length < 0 ? null : r.bytes(length).toString('utf8');
  }
  const length = r.int16();
  return length < 0 ? null : r.bytes(length).toString('utf8');
}

function uuid(r: SchemaReader): string {
  const h = r.bytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function array<T>(r: SchemaReader, flexible: boolean, item: () => T): T[] {
  return Array.from({ length: r.arrayLength(flexible) }, item);
}

/** GroupMetadataValue, versions 0 to 4 (4 flexible). */
function classicValue(v: SchemaReader): ClassicValue {
  const version = v.int16();
  const flexible = version >= 4;
  const bytes = (): Buffer => v.bytes(flexible ? v.uvarint() - 1 : v.int32());
  const protocolType = v.string(flexible);
  const generation = v.int32();
  const protocol = nullableString(v, flexible);
  const leader = nullableString(v, flexible);
  const currentStateTimestamp = version >= 2 ? v.int64() : -1n;
  const members = array(v, flexible, () => {
    const memberId = v.string(flexible);
    const groupInstanceId = version >= 3 ? nullableString(v, flexible) : null;
    const clientId = v.string(flexible);
    const clientHost = v.string(flexible);
    const rebalanceTimeout = version >= 1 ? v.int32() : -1;
    const sessionTimeout = v.int32();
    const subscription = bytes();
    const assignment = bytes();
    if (flexible) v.taggedFields();
    return { memberId, groupInstanceId, clientId, clientHost, rebalanceTimeout, sessionTimeout, subscription, assignment };
  });
  if (flexible) v.taggedFields();
  return { version, protocolType, generation, protocol, leader, currentStateTimestamp, members };
}

/** The TopicPartitions of the consumer group records (flexible), with ConsumerGroupCurrentMemberAssignmentValue's tag 0, AssignmentEpochs. */
function topicPartitions(v: SchemaReader): TopicPartitions[] {
  return array(v, true, () => {
    const topicId = uuid(v);
    const partitions = array(v, true, () => v.int32());
    const epochs = v.taggedFields().get(0);
    let assignmentEpochs: number[] | null = null;
    if (epochs !== undefined) {
      const e = new SchemaReader(epochs);
      const n = e.arrayLength(true);
      assignmentEpochs = n < 0 ? null : Array.from({ length: n }, () => e.int32());
    }
    return { topicId, partitions, assignmentEpochs };
  });
}

/** A record of a group, or undefined for an offset commit (types 0 and 1). */
export function decodeGroupRecord(key: Buffer, value: Buffer | null): GroupRecord | undefined {
  const k = new SchemaReader(key);
  const type = k.int16();
  if (type < 2) return undefined;
  const group = k.string(false);
  // ConsumerGroupMemberMetadata (5), ConsumerGroupTargetAssignmentMember (7) and ConsumerGroupCurrentMemberAssignment (8) name a member.
  const member = [5, 7, 8].includes(type) ? k.string(false) : undefined;
  assert.ok(k.done, `the key of type ${type} is read whole`);
  if (value === null) return { type, group, member, value: null };
  const v = new SchemaReader(value);
  let decoded: unknown;
  if (type === 2) {
    decoded = classicValue(v);
  } else {
    assert.equal(v.int16(), 0, `type ${type}'s value version`);
    switch (type) {
      case 3:
        decoded = { epoch: v.int32() };
        v.taggedFields();
        break;
      case 5: {
        const instanceId = nullableString(v, true);
        const rackId = nullableString(v, true);
        const clientId = v.string(true);
        const clientHost = v.string(true);
        const subscribedTopicNames = array(v, true, () => v.string(true));
        const subscribedTopicRegex = nullableString(v, true);
        const rebalanceTimeoutMs = v.int32();
        const serverAssignor = nullableString(v, true);
        v.taggedFields();
        decoded = { instanceId, rackId, clientId, clientHost, subscribedTopicNames, subscribedTopicRegex, rebalanceTimeoutMs, serverAssignor };
        break;
      }
      case 6:
        decoded = { assignmentEpoch: v.int32() };
        v.taggedFields();
        break;
      case 7:
        decoded = topicPartitions(v);
        v.taggedFields();
        break;
      case 8: {
        const memberEpoch = v.int32();
        const previousMemberEpoch = v.int32();
        const state = v.int8();
        const assigned = topicPartitions(v);
        const pendingRevocation = topicPartitions(v);
        v.taggedFields();
        decoded = { memberEpoch, previousMemberEpoch, state, assigned, pendingRevocation } satisfies CurrentAssignment;
        break;
      }
      default:
        assert.fail(`record type ${type} is not one brook writes`);
    }
  }
  assert.ok(v.done, `the value of type ${type} is read whole`);
  return { type, group, member, value: decoded };
}

/** Every group record of one partition of __consumer_offsets, in order. */
export async function groupRecords(c: WireClient, partition: number): Promise<GroupRecord[]> {
  const records: GroupRecord[] = [];
  for (const batch of await fetchAllBatches(c, OFFSETS, partition)) {
    for (const r of readStoredRecords(batch, 0, Infinity, 1 << 20)) {
      const decoded = decodeGroupRecord(r.key!, r.value);
      if (decoded !== undefined) records.push(decoded);
    }
  }
  return records;
}

/** The last record of each key of the group. */
export async function latest(c: WireClient, group: string, partitions = 50): Promise<Map<string, GroupRecord>> {
  const records = (await groupRecords(c, kafkaPartitionFor(group, partitions))).filter((r) => r.group === group);
  return new Map(records.map((r) => [`${r.type}/${r.member ?? ''}`, r]));
}
