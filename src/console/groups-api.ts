/** The Consumer groups view's data: each group's state and members, and per partition its committed offset and lag. */
import type { BrokerContext } from '../broker/broker-context.js';
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
  const group = broker.groups.describe(groupId);
  if (group.state === 'Dead') throw new ApiError(404, `no group named ${JSON.stringify(groupId)}`);
  return {
    groupId,
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
