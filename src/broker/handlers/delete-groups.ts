/** DeleteGroups: an Empty group goes, with its committed offsets; one with members is NON_EMPTY_GROUP. */
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../../protocol/messages/delete-groups.js';
import { defineApi } from '../api-handler.js';

export const deleteGroups = defineApi({
  request: DeleteGroupsRequest,
  response: DeleteGroupsResponse,
  minVersion: 0,
  maxVersion: 2,
  async handle(request, _info, broker): Promise<DeleteGroupsResponse> {
    const results: DeleteGroupsResponse['results'] = [];
    for (const groupId of request.groupsNames) results.push({ groupId, errorCode: await broker.groups.delete(groupId) });
    return { throttleTimeMs: 0, results };
  },
});
