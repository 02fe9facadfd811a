/** DescribeGroups: state, protocol and members; an unknown group is described as Dead, as Kafka's `GroupCoordinator.handleDescribeGroup` does. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../../protocol/messages/describe-groups.js';
import { defineApi } from '../api-handler.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { authorizedOperations, mayDo, NOT_ASKED } from '../access.js';

export const describeGroups = defineApi({
  request: DescribeGroupsRequest,
  response: DescribeGroupsResponse,
  minVersion: 0,
  maxVersion: 5,
  handle(request, info, broker): DescribeGroupsResponse {
    const groups = request.groups.map((groupId) => {
      if (!mayDo(info.connection, broker, ResourceType.GROUP, groupId, AclOperation.DESCRIBE)) return refused(groupId);
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
        authorizedOperations: authorizedOperations(request.includeAuthorizedOperations, info.connection, broker, ResourceType.GROUP, groupId),
      };
    });
    return { throttleTimeMs: 0, groups };
  },
});

/** A group the client may not describe: GROUP_AUTHORIZATION_FAILED and nothing of it, as Kafka's `KafkaApis.handleDescribeGroupsRequest` answers. */
function refused(groupId: string): DescribeGroupsResponse['groups'][number] {
  return {
    errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
    groupId,
    groupState: '',
    protocolType: '',
    protocolData: '',
    members: [],
    authorizedOperations: NOT_ASKED,
  };
}
