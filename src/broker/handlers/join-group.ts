/** JoinGroup: answered when the group's join phase completes (or at once, with an error or a member id). */
import { JoinGroupRequest, JoinGroupResponse } from '../../protocol/messages/join-group.js';
import { defineApi } from '../api-handler.js';

export const joinGroup = defineApi({
  request: JoinGroupRequest,
  response: JoinGroupResponse,
  minVersion: 0,
  maxVersion: 9,
  async handle(request, info, broker): Promise<JoinGroupResponse> {
    const outcome = await broker.groups.join({
      groupId: request.groupId,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId,
      protocolType: request.protocolType,
      protocols: request.protocols,
      sessionTimeoutMs: request.sessionTimeoutMs,
      // v0 has no rebalance timeout; Kafka's `GroupCoordinatorAdapter.joinGroup` uses the session timeout for it.
      rebalanceTimeoutMs: info.apiVersion === 0 ? request.sessionTimeoutMs : request.rebalanceTimeoutMs,
      clientId: info.clientId ?? '',
      // Kafka shows a member's host as "/<address>", without the port.
      clientHost: `/${info.connection.address}`,
      requireKnownMemberId: info.apiVersion >= 4,
    });
    // Before v7 the protocol name is not nullable; Kafka sends '' instead.
    const protocolName = info.apiVersion < 7 ? (outcome.protocolName ?? '') : outcome.protocolName;
    return { throttleTimeMs: 0, ...outcome, protocolName };
  },
});
