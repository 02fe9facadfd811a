/** ApiVersions: the versions this broker serves, which are exactly the ones its handlers implement. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../../protocol/messages/api-versions.js';
import { ApiKey } from '../../protocol/messages/apis.js';
import { defineApi, type ApiHandler } from '../api-handler.js';

export function apiVersions(table: ReadonlyMap<number, ApiHandler>) {
  return defineApi({
    request: ApiVersionsRequest,
    response: ApiVersionsResponse,
    minVersion: 0,
    maxVersion: 4,
    handle(): ApiVersionsResponse {
      const apiKeys = [...table].map(([apiKey, h]) => ({ apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }));
      return { errorCode: ErrorCode.NONE, apiKeys, throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [], zkMigrationReady: false };
    },
  });
}

/** Kafka's answer to an ApiVersions version it does not know: v0 layout, listing its own range. */
export function unsupportedApiVersionsResponse(handler: ApiHandler): ApiVersionsResponse {
  return {
    errorCode: ErrorCode.UNSUPPORTED_VERSION,
    apiKeys: [{ apiKey: ApiKey.ApiVersions, minVersion: handler.minVersion, maxVersion: handler.maxVersion }],
    throttleTimeMs: 0,
    supportedFeatures: [],
    finalizedFeaturesEpoch: -1n,
    finalizedFeatures: [],
    zkMigrationReady: false,
  };
}
