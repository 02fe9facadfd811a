/**
 * ListConfigResources (KIP-1142; v0 is KIP-714's ListClientMetricsResources): brook keeps no client
 * metrics subscriptions, so there are none to list; it serves v0 only, as Kafka 3.9's
 * `KafkaApis.handleListClientMetricsResources` does.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ListConfigResourcesRequest, ListConfigResourcesResponse } from '../../protocol/messages/list-config-resources.js';
import { defineApi } from '../api-handler.js';

export const listConfigResources = defineApi({
  request: ListConfigResourcesRequest,
  response: ListConfigResourcesResponse,
  minVersion: 0,
  maxVersion: 0,
  featureOff: true,
  handle(): ListConfigResourcesResponse {
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, configResources: [] };
  },
});
