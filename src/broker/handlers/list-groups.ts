/** ListGroups: every group with members or committed offsets, filtered by state (v4) and type (v5). */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ListGroupsRequest, ListGroupsResponse } from '../../protocol/messages/list-groups.js';
import { defineApi } from '../api-handler.js';

/** All groups here speak the classic protocol. */
const GROUP_TYPE = 'classic';

export const listGroups = defineApi({
  request: ListGroupsRequest,
  response: ListGroupsResponse,
  minVersion: 0,
  maxVersion: 5,
  handle(request, _info, broker): ListGroupsResponse {
    const states = new Set(request.statesFilter.map((s) => s.toLowerCase()));
    const typeWanted = request.typesFilter.length === 0 || request.typesFilter.some((t) => t.toLowerCase() === GROUP_TYPE);
    const groups = broker.groups
      .list()
      .filter((g) => typeWanted && (states.size === 0 || states.has(g.state.toLowerCase())))
      .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, groupState: g.state, groupType: GROUP_TYPE }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups };
  },
});
