/**
 * A group changing protocol with its members in it (`group.consumer.migration.policy`): a classic
 * group taken over as a consumer group when a consumer-protocol member joins (Kafka's
 * `ConsumerGroup.fromClassicGroup`), and a consumer group whose members are all classic given
 * back as a classic group (Kafka's `ClassicGroup.fromConsumerGroup`). Pure: the coordinators stop
 * and start the timers.
 */
import type { ConsumerGroupMigrationPolicy } from '../settings/settings.js';
import type { TopicPartitions } from './assignors.js';
import { ClassicGroup, EMPTY_ASSIGNMENT, Member } from './classic-group.js';
import { ConsumerGroup, joiningMember, type ConsumerMember, type TopicImage } from './consumer-group.js';
import {
  assignedPartitions,
  assignmentHasUserData,
  CONSUMER_PROTOCOL_TYPE,
  protocolVersion,
  readSubscription,
  writeAssignment,
  type TopicPartitionsByName,
} from './consumer-protocol.js';

export const upgradeEnabled = (policy: ConsumerGroupMigrationPolicy): boolean => policy === 'upgrade' || policy === 'bidirectional';
export const downgradeEnabled = (policy: ConsumerGroupMigrationPolicy): boolean => policy === 'downgrade' || policy === 'bidirectional';

/** The message of Kafka's `validateOnlineUpgrade` when the classic group may not become a consumer group, else undefined. */
export function upgradeRefusal(policy: ConsumerGroupMigrationPolicy, group: ClassicGroup, maxSize: number): string | undefined {
  const cannot = `Cannot upgrade classic group ${group.groupId} to consumer group because`;
  if (!upgradeEnabled(policy)) return `${cannot} online upgrade is disabled.`;
  if (group.protocolType !== CONSUMER_PROTOCOL_TYPE) return `${cannot} the group does not use the consumer embedded protocol.`;
  if (group.members.size > maxSize) return `${cannot} the group size exceeds the consumer group maximum size.`;
  return undefined;
}

/**
 * The classic group as a consumer group at its generation: each member Stable, owning what its
 * last SyncGroup gave it; or the sentence Kafka refuses the upgrade with when a member's
 * subscription does not parse or an assignment carries a custom assignor's user data.
 */
export function toConsumerGroup(group: ClassicGroup, image: TopicImage): ConsumerGroup | string {
  const members: ConsumerMember[] = [];
  for (const m of group.members.values()) {
    const subscription = group.protocolName === null ? undefined : readSubscription(m.metadataFor(group.protocolName));
    if (subscription === undefined)
      return `Cannot upgrade the classic group ${group.groupId} to consumer group because the embedded consumer protocol is malformed.`;
    if (assignmentHasUserData(m.assignment)) {
      return `Cannot upgrade the classic group ${group.groupId} to consumer group because an unsupported custom assignor is in use.`;
    }
    const member = joiningMember(
      {
        memberId: m.memberId,
        instanceId: m.groupInstanceId,
        rackId: subscription.rackId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        subscribedTopicNames: subscription.topics,
        subscribedTopicRegex: null,
        serverAssignor: null,
      },
      { sessionTimeoutMs: m.sessionTimeoutMs, supportedProtocols: m.protocols },
    );
    member.memberEpoch = member.previousMemberEpoch = group.generationId;
    member.assigned = byTopicId(assignedPartitions(m.assignment) ?? [], image);
    for (const [topic, partitions] of member.assigned) member.assignmentEpochs.set(topic, new Map([...partitions].map((p) => [p, group.generationId])));
    members.push(member);
  }
  return ConsumerGroup.fromClassic(group.groupId, group.generationId, members, image);
}

/**
 * The consumer group, all of whose members are classic, as a classic group Stable at `generation`
 * (the group's epoch before the member whose leave prompted it): each member's assignment its target, written in its protocol's version. The caller starts
 * a rebalance, so the members rejoin and their leader assigns.
 */
export function toClassicGroup(group: ConsumerGroup, generation: number, image: TopicImage, clock: () => number): ClassicGroup {
  const classic = new ClassicGroup(group.groupId, clock);
  classic.generationId = generation;
  for (const m of group.members.values()) {
    const member = new Member(
      m.memberId,
      m.instanceId,
      m.clientId,
      m.clientHost,
      m.rebalanceTimeoutMs,
      m.classic!.sessionTimeoutMs,
      m.classic!.supportedProtocols,
    );
    classic.add(member, CONSUMER_PROTOCOL_TYPE);
  }
  classic.transitionTo('Stable');
  if (classic.members.size === 0) return classic;
  classic.protocolName = classic.selectProtocol();
  for (const member of classic.members.values()) {
    const target = group.target.get(member.memberId);
    const version = protocolVersion(member.metadataFor(classic.protocolName));
    member.assignment = target === undefined ? EMPTY_ASSIGNMENT : writeAssignment(version, byTopicName(target, image));
  }
  return classic;
}

/** Partitions named by topic as the consumer group keeps them, by topic id; topics that do not exist are left out. */
export function byTopicId(partitions: readonly TopicPartitionsByName[], image: TopicImage): TopicPartitions {
  const out: TopicPartitions = new Map();
  for (const t of partitions) {
    const id = image.byName.get(t.topic)?.topicId;
    if (id === undefined) continue;
    const set = out.get(id) ?? new Set<number>();
    for (const p of t.partitions) set.add(p);
    out.set(id, set);
  }
  return out;
}

/** The partitions by topic name, sorted, as a classic member is given them; topics no longer there are left out. */
export function byTopicName(partitions: TopicPartitions, image: TopicImage): TopicPartitionsByName[] {
  const names = new Map([...image.byName].map(([name, t]) => [t.topicId, name]));
  const out: TopicPartitionsByName[] = [];
  for (const [id, set] of partitions) {
    const topic = names.get(id);
    if (topic !== undefined && set.size > 0) out.push({ topic, partitions: [...set].sort((a, b) => a - b) });
  }
  return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
}
