import { ErrorCode } from '../../src/protocol/error-codes.js';
import {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  type ConsumerGroupHeartbeatRequestTopicPartitions,
} from '../../src/protocol/messages/consumer-group-heartbeat.js';
import { JoinGroupRequest, JoinGroupResponse } from '../../src/protocol/messages/join-group.js';
import type { WireClient } from './wire-client.js';

/** A classic member's JoinGroup for the range assignor, asking again with the member id handed out when the version requires one. */
export async function joinGroup(c: WireClient, version: number, groupId: string, memberId: string, subscription: Buffer): Promise<JoinGroupResponse> {
  const send = (id: string) =>
    c.request(JoinGroupRequest, JoinGroupResponse, version, {
      groupId,
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 30_000,
      memberId: id,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: subscription }],
      reason: null,
    });
  const first = await send(memberId);
  return first.errorCode === ErrorCode.MEMBER_ID_REQUIRED ? send(first.memberId) : first;
}

/**
 * A consumer-protocol member's ConsumerGroupHeartbeat: its join (epoch 0) subscribes to `topic` and
 * owns nothing; a later beat (or its leave, epoch -1) repeats nothing but, given `owned`, what it holds.
 */
export function consumerHeartbeat(
  c: WireClient,
  version: number,
  groupId: string,
  memberId: string,
  memberEpoch: number,
  topic: string,
  owned: ConsumerGroupHeartbeatRequestTopicPartitions[] | null = null,
): Promise<ConsumerGroupHeartbeatResponse> {
  return c.request(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, version, {
    groupId,
    memberId,
    memberEpoch,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: memberEpoch === 0 ? 30_000 : -1,
    subscribedTopicNames: memberEpoch === 0 ? [topic] : null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: memberEpoch === 0 ? [] : owned,
  });
}
