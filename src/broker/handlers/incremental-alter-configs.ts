/** IncrementalAlterConfigs: brook alters no config yet; each resource it has is refused with POLICY_VIOLATION, others as DescribeConfigs answers them. */
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../../protocol/messages/incremental-alter-configs.js';
import { defineApi } from '../api-handler.js';
import { refuseAlterations } from '../config-resources.js';

export const incrementalAlterConfigs = defineApi({
  request: IncrementalAlterConfigsRequest,
  response: IncrementalAlterConfigsResponse,
  minVersion: 0,
  maxVersion: 1,
  handle(request, _info, broker): IncrementalAlterConfigsResponse {
    return { throttleTimeMs: 0, responses: refuseAlterations(request.resources, broker.storage) };
  },
});
