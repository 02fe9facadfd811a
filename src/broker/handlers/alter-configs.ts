/** AlterConfigs: each topic's own configs replaced by those given; see config-alterations.ts. */
import { AlterConfigsRequest, AlterConfigsResponse } from '../../protocol/messages/alter-configs.js';
import { defineApi } from '../api-handler.js';
import { alterResources, SET } from '../config-alterations.js';

export const alterConfigs = defineApi({
  request: AlterConfigsRequest,
  response: AlterConfigsResponse,
  minVersion: 0,
  maxVersion: 2,
  async handle(request, info, broker): Promise<AlterConfigsResponse> {
    const resources = request.resources.map((r) => ({ ...r, replace: true, configs: r.configs.map((c) => ({ ...c, configOperation: SET })) }));
    return { throttleTimeMs: 0, responses: await alterResources(broker, info.connection, resources, request.validateOnly) };
  },
});
