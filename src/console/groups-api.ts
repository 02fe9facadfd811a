/**
 * The Consumer groups view's data: each group's protocol, state and members, and per partition its
 * committed offset and lag. A consumer-protocol group (KIP-848) shows what ConsumerGroupDescribe
 * shows of it, and more: its epochs and assignor, and each member's epoch, state, subscription,
 * partitions owned, pending revocation and target.
 */
import type { BrokerContext } from '../broker/broker-context.js';
import { topicImage } from '../broker/topic-image.js';
import type { TopicPartitions } from '../groups/assignors.js';
import type { ConsumerGroup } from '../groups/consumer-group.js';
import { assignedPartitions, CONSUMER_PROTOCOL_TYPE } from '../groups/consumer-protocol.js';
import { ApiError, matching, page } from './api-input.js';

export function listGroups(broker: BrokerContext, query: URLSearchParams): unknown {
  const shown = page(
    matching(broker.groups.list(), (g) => g.groupId, query),
    query,
  );
  return { ...shown, items: shown.items.map((g) => ({ ...g, lag: totalLag(broker, g.groupId) })) };
}

export function describeGroup(broker: BrokerContext, groupId: string): unknown {
  const consumerGroup = broker.groups.consumerGroup(groupId);
  if ('groupEpoch' in consumerGroup) return describeConsumerGroup(broker, consumerGroup);
  const group = broker.groups.describe(groupId);
  if (group.state === 'Dead') throw new ApiError(404, `no group named ${JSON.stringify(groupId)}`);
  return {
    groupId,
    groupType: 'classic',
    state: group.state,
    protocolType: group.protocolType,
    protocol: group.protocolData,
    members: group.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      assignment: group.protocolType === CONSUMER_PROTOCOL_TYPE ? (assignedPartitions(m.assignment) ?? []) : [],
    })),
    offsets: committed(broker, groupId),
  };
}

function describeConsumerGroup(broker: BrokerContext, group: ConsumerGroup): unknown {
  const names = new Map([...topicImage(broker.storage).byName].map(([name, t]) => [t.topicId, name]));
  // By topic name, in order; a topic deleted since shows by its id.
  const byName = (partitions: TopicPartitions | undefined): { topic: string; partitions: number[] }[] =>
    [...(partitions ?? [])]
      .filter(([, set]) => set.size > 0)
      .map(([topicId, set]) => ({ topic: names.get(topicId) ?? topicId, partitions: [...set].sort((a, b) => a - b) }))
      .sort((a, b) => (a.topic < b.topic ? -1 : 1));
  return {
    groupId: group.groupId,
    groupType: 'consumer',
    state: group.state(),
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignor: broker.groups.consumer.assignorOf(group),
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberEpoch: m.memberEpoch,
      state: m.state,
      subscribedTopicNames: [...m.subscribedTopicNames].sort(),
      subscribedTopicRegex: m.subscribedTopicRegex,
      assignment: byName(m.assigned),
      pendingRevocation: byName(m.pendingRevocation),
      target: byName(group.target.get(m.memberId)),
    })),
    offsets: committed(broker, group.groupId),
  };
}

/** Each committed offset with the partition's high watermark and the lag between them, by topic and partition. */
function committed(
  broker: BrokerContext,
  groupId: string,
): { topic: string; partition: number; offset: number; highWatermark: number | null; lag: number | null }[] {
  const offsets = broker.groups.committedOffsets(groupId);
  if (offsets === undefined) return [];
  return [...offsets]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .flatMap(([topic, partitions]) =>
      [...partitions]
        .sort(([a], [b]) => a - b)
        .map(([partition, c]) => {
          const log = broker.storage.partition(topic, partition);
          const offset = Number(c.offset);
          // As Kafka's tools (`ConsumerGroupCommand`): lag is what lies between the committed offset and the high watermark.
          const highWatermark = log?.highWatermark ?? null;
          return { topic, partition, offset, highWatermark, lag: highWatermark === null || offset < 0 ? null : Math.max(0, highWatermark - offset) };
        }),
    );
}

function totalLag(broker: BrokerContext, groupId: string): number {
  return committed(broker, groupId).reduce((sum, o) => sum + (o.lag ?? 0), 0);
}
