/** SyncGroup: the leader hands in the assignment; every member waits for its share. */
import { SyncGroupRequest, SyncGroupResponse } from '../../protocol/messages/sync-group.js';
import { defineApi } from '../api-handler.js';

export const syncGroup = defineApi({
  request: SyncGroupRequest,
  response: SyncGroupResponse,
  minVersion: 0,
  maxVersion: 5,
  async handle(request, _info, broker): Promise<SyncGroupResponse> {
    const outcome = await broker.groups.sync(request);
    return { throttleTimeMs: 0, ...outcome };
  },
});
