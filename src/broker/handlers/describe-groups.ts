/** DescribeGroups: state, protocol and members; an unknown group is described as Dead, as Kafka does. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../../protocol/messages/describe-groups.js';
import { defineApi } from '../api-handler.js';
import { authorizedOperations, GROUP_OPERATIONS } from '../authorized-operations.js';

export const describeGroups = defineApi({
  request: DescribeGroupsRequest,
  response: DescribeGroupsResponse,
  minVersion: 0,
  maxVersion: 5,
  handle(request, _info, broker): DescribeGroupsResponse {
    const groups = request.groups.map((groupId) => {
      const d = broker.groups.describe(groupId);
      return {
        errorCode: ErrorCode.NONE,
        groupId,
        groupState: d.state,
        protocolType: d.protocolType,
        protocolData: d.protocolData,
        members: d.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberMetadata: m.metadata,
          memberAssignment: m.assignment,
        })),
        authorizedOperations: authorizedOperations(request.includeAuthorizedOperations, GROUP_OPERATIONS),
      };
    });
    return { throttleTimeMs: 0, groups };
  },
});
