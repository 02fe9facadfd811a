/** LeaveGroup: one member (v0–2) or several, by member id or, for static members, instance id (v3+). */
import { ErrorCode } from '../../protocol/error-codes.js';
import { LeaveGroupRequest, LeaveGroupResponse } from '../../protocol/messages/leave-group.js';
import { defineApi } from '../api-handler.js';

export const leaveGroup = defineApi({
  request: LeaveGroupRequest,
  response: LeaveGroupResponse,
  minVersion: 0,
  maxVersion: 5,
  handle(request, info, broker): LeaveGroupResponse {
    const identities = info.apiVersion >= 3 ? request.members : [{ memberId: request.memberId, groupInstanceId: null }];
    const outcome = broker.groups.leave(request.groupId, identities);
    if (info.apiVersion >= 3) return { throttleTimeMs: 0, ...outcome };
    // Before v3 the one member's error is the response's error.
    const errorCode = outcome.errorCode !== ErrorCode.NONE ? outcome.errorCode : (outcome.members[0]?.errorCode ?? ErrorCode.NONE);
    return { throttleTimeMs: 0, errorCode, members: [] };
  },
});
