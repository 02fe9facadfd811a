/** DeleteGroups: an Empty group goes, with its committed offsets; one with members is NON_EMPTY_GROUP. */
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../../protocol/messages/delete-groups.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';

export const deleteGroups = defineApi({
  request: DeleteGroupsRequest,
  response: DeleteGroupsResponse,
  minVersion: 0,
  maxVersion: 2,
  async handle(request, { connection }, broker): Promise<DeleteGroupsResponse> {
    const results: DeleteGroupsResponse['results'] = [];
    for (const groupId of request.groupsNames) {
      const allowed = mayDo(connection, broker, ResourceType.GROUP, groupId, AclOperation.DELETE);
      results.push({ groupId, errorCode: allowed ? await broker.groups.delete(groupId) : ErrorCode.GROUP_AUTHORIZATION_FAILED });
    }
    return { throttleTimeMs: 0, results };
  },
});
