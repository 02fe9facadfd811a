/**
 * ListGroups: every group with members or committed offsets, classic and consumer, filtered by state (v4) and type (v5),
 * and, as Kafka's `KafkaApis.handleListGroupsRequest`, to those the client may describe unless it may describe the cluster.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ListGroupsRequest, ListGroupsResponse } from '../../protocol/messages/list-groups.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../acl/acl-binding.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';

export const listGroups = defineApi({
  request: ListGroupsRequest,
  response: ListGroupsResponse,
  minVersion: 0,
  maxVersion: 5,
  handle(request, { connection }, broker): ListGroupsResponse {
    const states = new Set(request.statesFilter.map((s) => s.toLowerCase()));
    const types = new Set(request.typesFilter.map((t) => t.toLowerCase()));
    const everyGroup = mayDo(connection, broker, ResourceType.CLUSTER, CLUSTER_NAME, AclOperation.DESCRIBE, true);
    const groups = broker.groups
      .list()
      .filter((g) => (types.size === 0 || types.has(g.groupType)) && (states.size === 0 || states.has(g.state.toLowerCase())))
      .filter((g) => everyGroup || mayDo(connection, broker, ResourceType.GROUP, g.groupId, AclOperation.DESCRIBE, true))
      .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, groupState: g.state, groupType: g.groupType }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups };
  },
});
