/** IncrementalAlterConfigs: each topic's own configs set, deleted, appended to or subtracted from; see config-alterations.ts. */
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../../protocol/messages/incremental-alter-configs.js';
import { defineApi } from '../api-handler.js';
import { alterResources } from '../config-alterations.js';

export const incrementalAlterConfigs = defineApi({
  request: IncrementalAlterConfigsRequest,
  response: IncrementalAlterConfigsResponse,
  minVersion: 0,
  maxVersion: 1,
  async handle(request, info, broker): Promise<IncrementalAlterConfigsResponse> {
    const resources = request.resources.map((r) => ({ ...r, replace: false }));
    return { throttleTimeMs: 0, responses: await alterResources(broker, info.connection, resources, request.validateOnly) };
  },
});
