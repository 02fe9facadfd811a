/**
 * A consumer group (KIP-848) as its records of `__consumer_offsets`, in Kafka's layout
 * (`GroupCoordinatorRecordHelpers`): the group's epoch (ConsumerGroupMetadata), each member's
 * subscription (ConsumerGroupMemberMetadata), the target assignment's epoch
 * (ConsumerGroupTargetAssignmentMetadata) and each member's target
 * (ConsumerGroupTargetAssignmentMember), and each member's epochs, state and partitions owned
 * or pending revocation, with the epoch each was given at (ConsumerGroupCurrentMemberAssignment).
 * Values are version 0, the only one Kafka has.
 *
 * Kafka 4.1+ keeps a hash of the subscribed topics (MetadataHash) to see them change; brook keeps
 * each subscribed topic's partition count in a tagged field of its own, which Kafka's reader
 * passes over as unknown, and writes no hash (docs/departures.md).
 */
import {
  coordinatorRecordType,
  decodeCoordinatorKey,
  decodeCoordinatorValue,
  encodeCoordinatorKey,
  encodeCoordinatorValue,
} from '../protocol/coordinator-record.js';
import {
  ConsumerGroupCurrentMemberAssignmentKey,
  ConsumerGroupCurrentMemberAssignmentValue,
  ConsumerGroupMemberMetadataKey,
  ConsumerGroupMemberMetadataValue,
  ConsumerGroupMetadataKey,
  ConsumerGroupMetadataValue,
  ConsumerGroupTargetAssignmentMemberKey,
  ConsumerGroupTargetAssignmentMemberValue,
  ConsumerGroupTargetAssignmentMetadataKey,
  ConsumerGroupTargetAssignmentMetadataValue,
  type ConsumerGroupCurrentMemberAssignmentValueTopicPartitions,
} from '../protocol/messages/coordinator-records.js';
import { ProtocolError } from '../protocol/primitives/errors.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import type { NewRecord } from '../protocol/stored-records.js';
import type { TopicPartitions } from './assignors.js';
import { ConsumerGroup, type ConsumerMember, type MemberState } from './consumer-group.js';

const VALUE_VERSION = 0;
/** brook's own tag on ConsumerGroupMetadataValue, far above Kafka's: topic id → partition count of the subscribed topics. */
const SUBSCRIBED_PARTITIONS_TAG = 10_000;

/** Kafka's `MemberState` values. */
const MEMBER_STATES: readonly MemberState[] = ['stable', 'unrevoked_partitions', 'unreleased_partitions'];

/** The record types of a consumer group, each the apiKey of its key schema. */
export const CONSUMER_GROUP_RECORD_TYPES: ReadonlySet<number> = new Set([
  ConsumerGroupMetadataKey.apiKey,
  ConsumerGroupMemberMetadataKey.apiKey,
  ConsumerGroupTargetAssignmentMetadataKey.apiKey,
  ConsumerGroupTargetAssignmentMemberKey.apiKey,
  ConsumerGroupCurrentMemberAssignmentKey.apiKey,
]);

const record = (key: Buffer, value: Buffer): NewRecord => ({ key, value, headers: [] });

/**
 * Every record of the group as it is now, in the order Kafka's `GroupMetadataManager` writes a
 * heartbeat's: the members' subscriptions, the group's epoch, the targets and their epoch, then
 * the members' current assignments.
 */
export function consumerGroupRecords(group: ConsumerGroup): NewRecord[] {
  const { groupId } = group;
  const members = [...group.members.values()];
  const records = members.map((m) => record(encodeCoordinatorKey(ConsumerGroupMemberMetadataKey, { groupId, memberId: m.memberId }), memberValue(m)));
  records.push(record(encodeCoordinatorKey(ConsumerGroupMetadataKey, { groupId }), groupValue(group)));
  for (const m of members) {
    const target = group.target.get(m.memberId) ?? new Map();
    const value = encodeCoordinatorValue(ConsumerGroupTargetAssignmentMemberValue, VALUE_VERSION, { topicPartitions: byTopic(target) });
    records.push(record(encodeCoordinatorKey(ConsumerGroupTargetAssignmentMemberKey, { groupId, memberId: m.memberId }), value));
  }
  const targetEpoch = encodeCoordinatorValue(ConsumerGroupTargetAssignmentMetadataValue, VALUE_VERSION, { assignmentEpoch: group.assignmentEpoch });
  records.push(record(encodeCoordinatorKey(ConsumerGroupTargetAssignmentMetadataKey, { groupId }), targetEpoch));
  for (const m of members) {
    const value = encodeCoordinatorValue(ConsumerGroupCurrentMemberAssignmentValue, VALUE_VERSION, {
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: MEMBER_STATES.indexOf(m.state),
      assignedPartitions: withEpochs(m.assigned, m),
      partitionsPendingRevocation: withEpochs(m.pendingRevocation, m),
    });
    records.push(record(encodeCoordinatorKey(ConsumerGroupCurrentMemberAssignmentKey, { groupId, memberId: m.memberId }), value));
  }
  return records;
}

function memberValue(m: ConsumerMember): Buffer {
  return encodeCoordinatorValue(ConsumerGroupMemberMetadataValue, VALUE_VERSION, {
    instanceId: m.instanceId,
    rackId: m.rackId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    subscribedTopicNames: m.subscribedTopicNames,
    subscribedTopicRegex: m.subscribedTopicRegex,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    serverAssignor: m.serverAssignor,
    classicMemberMetadata: m.classic === null ? null : { sessionTimeoutMs: m.classic.sessionTimeoutMs, supportedProtocols: [...m.classic.supportedProtocols] },
  });
}

/** The epoch, then brook's tag in place of Kafka's hash. */
function groupValue(group: ConsumerGroup): Buffer {
  const w = new Writer(32 + 24 * group.subscribedPartitions.size);
  w.writeInt16(VALUE_VERSION);
  w.writeInt32(group.groupEpoch);
  w.writeUnsignedVarint(1);
  w.writeUnsignedVarint(SUBSCRIBED_PARTITIONS_TAG);
  const start = w.beginSized();
  w.writeCompactArrayLength(group.subscribedPartitions.size);
  for (const [topicId, partitions] of group.subscribedPartitions) {
    w.writeUuid(topicId);
    w.writeInt32(partitions);
  }
  w.endSized(start);
  return w.finish();
}

function byTopic(partitions: TopicPartitions): { topicId: string; partitions: number[] }[] {
  return [...partitions].map(([topicId, set]) => ({ topicId, partitions: [...set] }));
}

/** Each topic's partitions with the epoch the member was given each at, when it knows every one's. */
function withEpochs(partitions: TopicPartitions, m: ConsumerMember): ConsumerGroupCurrentMemberAssignmentValueTopicPartitions[] {
  return byTopic(partitions).map(({ topicId, partitions: list }) => {
    const epochs = m.assignmentEpochs.get(topicId);
    const known = epochs !== undefined && list.every((p) => epochs.has(p));
    return { topicId, partitions: list, assignmentEpochs: known ? list.map((p) => epochs.get(p)!) : null };
  });
}

/** What the records read so far say of one member. */
interface MemberParts {
  metadata?: ConsumerGroupMemberMetadataValue;
  target?: TopicPartitions;
  current?: ConsumerGroupCurrentMemberAssignmentValue;
}

interface GroupParts {
  epoch?: number;
  subscribedPartitions: Map<string, number>;
  assignmentEpoch: number;
  readonly members: Map<string, MemberParts>;
}

/** The consumer groups the records of the topic hold, gathered record by record, the last record of each key winning. */
export class ConsumerGroupRecords {
  private readonly groups = new Map<string, GroupParts>();

  /** Takes a record of one of CONSUMER_GROUP_RECORD_TYPES; throws ProtocolError if it does not decode. */
  take(key: Buffer, value: Buffer | null): void {
    const type = coordinatorRecordType(key);
    if (type === ConsumerGroupMetadataKey.apiKey) {
      const { groupId } = decodeCoordinatorKey(ConsumerGroupMetadataKey, key);
      // As Kafka's `replay` of the group's epoch tombstone: the group goes.
      if (value === null) return void this.groups.delete(groupId);
      const group = this.group(groupId);
      const read = readGroupValue(value);
      group.epoch = read.epoch;
      group.subscribedPartitions = read.subscribedPartitions;
    } else if (type === ConsumerGroupTargetAssignmentMetadataKey.apiKey) {
      const { groupId } = decodeCoordinatorKey(ConsumerGroupTargetAssignmentMetadataKey, key);
      if (value !== null) this.group(groupId).assignmentEpoch = decodeCoordinatorValue(ConsumerGroupTargetAssignmentMetadataValue, value).value.assignmentEpoch;
    } else if (type === ConsumerGroupMemberMetadataKey.apiKey) {
      const { groupId, memberId } = decodeCoordinatorKey(ConsumerGroupMemberMetadataKey, key);
      this.member(groupId, memberId, value === null ? undefined : { metadata: decodeCoordinatorValue(ConsumerGroupMemberMetadataValue, value).value });
    } else if (type === ConsumerGroupTargetAssignmentMemberKey.apiKey) {
      const { groupId, memberId } = decodeCoordinatorKey(ConsumerGroupTargetAssignmentMemberKey, key);
      const target = value === null ? undefined : decodeCoordinatorValue(ConsumerGroupTargetAssignmentMemberValue, value).value.topicPartitions;
      this.member(groupId, memberId, { target: target === undefined ? undefined : toPartitions(target) });
    } else if (type === ConsumerGroupCurrentMemberAssignmentKey.apiKey) {
      const { groupId, memberId } = decodeCoordinatorKey(ConsumerGroupCurrentMemberAssignmentKey, key);
      const current = value === null ? undefined : decodeCoordinatorValue(ConsumerGroupCurrentMemberAssignmentValue, value).value;
      if (current !== undefined && MEMBER_STATES[current.state] === undefined) throw new ProtocolError(`member state ${current.state} is not one brook keeps`);
      this.member(groupId, memberId, { current });
    }
  }

  /** The groups whose epoch was read, each member with a subscription owning what it owned; no timers run. */
  groupsRead(): ConsumerGroup[] {
    const groups: ConsumerGroup[] = [];
    for (const [groupId, parts] of this.groups) {
      if (parts.epoch === undefined) continue;
      const members: RestoredMember[] = [];
      for (const [memberId, { metadata, target, current }] of parts.members) {
        if (metadata === undefined) continue;
        const assignmentEpochs = new Map<string, Map<number, number>>();
        const owned = (list: ConsumerGroupCurrentMemberAssignmentValueTopicPartitions[] | undefined): TopicPartitions => {
          for (const t of list ?? []) {
            if (t.assignmentEpochs === null || t.assignmentEpochs === undefined) continue;
            let epochs = assignmentEpochs.get(t.topicId);
            if (epochs === undefined) assignmentEpochs.set(t.topicId, (epochs = new Map()));
            t.partitions.forEach((p, i) => epochs.set(p, t.assignmentEpochs![i]!));
          }
          return toPartitions(list ?? []);
        };
        const member: ConsumerMember = {
          memberId,
          instanceId: metadata.instanceId,
          rackId: metadata.rackId,
          clientId: metadata.clientId,
          clientHost: metadata.clientHost,
          rebalanceTimeoutMs: metadata.rebalanceTimeoutMs,
          subscribedTopicNames: metadata.subscribedTopicNames,
          subscribedTopicRegex: metadata.subscribedTopicRegex,
          serverAssignor: metadata.serverAssignor,
          memberEpoch: current?.memberEpoch ?? 0,
          previousMemberEpoch: current?.previousMemberEpoch ?? -1,
          state: current === undefined ? 'stable' : MEMBER_STATES[current.state]!,
          assigned: owned(current?.assignedPartitions),
          pendingRevocation: owned(current?.partitionsPendingRevocation),
          assignmentEpochs,
          classic: metadata.classicMemberMetadata ?? null,
        };
        members.push({ member, target: target ?? new Map() });
      }
      groups.push(restoredConsumerGroup(groupId, parts.epoch, parts.assignmentEpoch, parts.subscribedPartitions, members));
    }
    return groups;
  }

  private group(groupId: string): GroupParts {
    let group = this.groups.get(groupId);
    if (group === undefined) this.groups.set(groupId, (group = { subscribedPartitions: new Map(), assignmentEpoch: 0, members: new Map() }));
    return group;
  }

  /** Sets what `parts` names of the member, undefined for a tombstone of it; a member left with nothing goes. */
  private member(groupId: string, memberId: string, parts: MemberParts | undefined): void {
    const members = this.group(groupId).members;
    const held = { ...members.get(memberId) };
    if (parts === undefined) delete held.metadata;
    else Object.assign(held, parts);
    if (held.metadata === undefined && held.target === undefined && held.current === undefined) members.delete(memberId);
    else members.set(memberId, held);
  }
}

function readGroupValue(value: Buffer): { epoch: number; subscribedPartitions: Map<string, number> } {
  const { version, value: v } = decodeCoordinatorValue(ConsumerGroupMetadataValue, value);
  const subscribedPartitions = new Map<string, number>();
  // The tagged fields follow the version and the epoch.
  const r = new Reader(value, 6);
  r.readTaggedFields(undefined, version, (tr, tag) => {
    if (tag !== SUBSCRIBED_PARTITIONS_TAG) return false;
    for (let n = tr.readCompactArrayLength(); n > 0; n--) subscribedPartitions.set(tr.readUuid(), tr.readInt32());
    return true;
  });
  return { epoch: v.epoch, subscribedPartitions };
}

function toPartitions(list: readonly { topicId: string; partitions: number[] }[]): TopicPartitions {
  return new Map(list.map((t) => [t.topicId, new Set(t.partitions)]));
}

/** A member as stored, with its target. */
export interface RestoredMember {
  readonly member: ConsumerMember;
  readonly target: TopicPartitions;
}

/** The group as stored, its members owning what they owned; no epoch moves. */
export function restoredConsumerGroup(
  groupId: string,
  groupEpoch: number,
  assignmentEpoch: number,
  subscribedPartitions: Map<string, number>,
  members: readonly RestoredMember[],
): ConsumerGroup {
  const group = new ConsumerGroup(groupId);
  group.groupEpoch = groupEpoch;
  group.assignmentEpoch = assignmentEpoch;
  group.subscribedPartitions = subscribedPartitions;
  for (const { member, target } of members) {
    group.restoreMember(member);
    group.target.set(member.memberId, target);
  }
  return group;
}
