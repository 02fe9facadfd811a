/** ListClientMetricsResources (KIP-714): brook keeps no client metrics subscriptions, so there are none to list. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ListClientMetricsResourcesRequest, ListClientMetricsResourcesResponse } from '../../protocol/messages/list-client-metrics-resources.js';
import { defineApi } from '../api-handler.js';

export const listClientMetricsResources = defineApi({
  request: ListClientMetricsResourcesRequest,
  response: ListClientMetricsResourcesResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(): ListClientMetricsResourcesResponse {
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, clientMetricsResources: [] };
  },
});
