/**
 * DescribeGroups: state, protocol and members of a classic group. A group that is not one (none,
 * or a consumer group of KIP-848's protocol) is described as Dead, and from v6 (KIP-1043) answered
 * GROUP_ID_NOT_FOUND with a message saying which, as Kafka's `GroupMetadataManager.describeGroups` does.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../../protocol/messages/describe-groups.js';
import { defineApi } from '../api-handler.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { authorizedOperations, mayDo, NOT_ASKED } from '../access.js';

/** From v6 a group that is not a classic one is answered GROUP_ID_NOT_FOUND (KIP-1043). */
const NOT_FOUND_VERSION = 6;

export const describeGroups = defineApi({
  request: DescribeGroupsRequest,
  response: DescribeGroupsResponse,
  minVersion: 0,
  maxVersion: 6,
  handle(request, info, broker): DescribeGroupsResponse {
    const groups = request.groups.map((groupId) => {
      if (!mayDo(info.connection, broker, ResourceType.GROUP, groupId, AclOperation.DESCRIBE)) return refused(groupId);
      const d = broker.groups.describe(groupId);
      if (d.state === 'Dead' && info.apiVersion >= NOT_FOUND_VERSION) {
        const errorMessage = broker.groups.consumer.groups.has(groupId) ? `Group ${groupId} is not a classic group.` : `Group ${groupId} not found.`;
        return { ...refused(groupId), errorCode: ErrorCode.GROUP_ID_NOT_FOUND, groupState: d.state, errorMessage };
      }
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
