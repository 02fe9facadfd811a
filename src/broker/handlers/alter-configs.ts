/** AlterConfigs: brook alters no config yet; each resource it has is refused with POLICY_VIOLATION, others as DescribeConfigs answers them. */
import { AlterConfigsRequest, AlterConfigsResponse } from '../../protocol/messages/alter-configs.js';
import { defineApi } from '../api-handler.js';
import { refuseAlterations } from '../config-resources.js';

export const alterConfigs = defineApi({
  request: AlterConfigsRequest,
  response: AlterConfigsResponse,
  minVersion: 0,
  maxVersion: 2,
  handle(request, _info, broker): AlterConfigsResponse {
    return { throttleTimeMs: 0, responses: refuseAlterations(request.resources, broker.storage) };
  },
});
