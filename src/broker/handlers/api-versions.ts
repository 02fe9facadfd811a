/** ApiVersions: the versions this broker serves, which are exactly the ones its handlers implement. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../../protocol/messages/api-versions.js';
import { ApiKey } from '../../protocol/messages/apis.js';
import { defineApi, type ApiHandler } from '../api-handler.js';
import { FINALIZED_FEATURES_EPOCH, type FeatureLevels } from '../features.js';

export function apiVersions(table: ReadonlyMap<number, ApiHandler>, features: FeatureLevels) {
  return defineApi({
    request: ApiVersionsRequest,
    response: ApiVersionsResponse,
    minVersion: 0,
    maxVersion: 4,
    handle(request, info): ApiVersionsResponse {
      // v3 names the client's software; Kafka's `ApiVersionsRequest.isValid` refuses names and versions outside its pattern.
      if (info.apiVersion >= 3 && !(SOFTWARE.test(request.clientSoftwareName) && SOFTWARE.test(request.clientSoftwareVersion))) {
        return { ...response(ErrorCode.INVALID_REQUEST, features), apiKeys: [] };
      }
      const apiKeys = [...table]
        .sort(([a], [b]) => a - b)
        .map(([apiKey, h]) => ({ apiKey, minVersion: h.advertisedMinVersion ?? h.minVersion, maxVersion: h.maxVersion }));
      return { ...response(ErrorCode.NONE, features), apiKeys };
    },
  });
}

/** Kafka's pattern for a client software name or version. */
const SOFTWARE = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** v3+ carry the features (KIP-584), as tagged fields. */
function response(errorCode: number, features: FeatureLevels): Omit<ApiVersionsResponse, 'apiKeys'> {
  const levels = [...features];
  return {
    errorCode,
    throttleTimeMs: 0,
    supportedFeatures: levels.map(([name, level]) => ({ name, minVersion: level.minSupported, maxVersion: level.maxSupported })),
    finalizedFeaturesEpoch: FINALIZED_FEATURES_EPOCH,
    finalizedFeatures: levels.map(([name, level]) => ({ name, minVersionLevel: level.finalized, maxVersionLevel: level.finalized })),
    zkMigrationReady: false,
  };
}

/** Kafka's answer to an ApiVersions version it does not know: v0 layout (no features), listing its own range. */
export function unsupportedApiVersionsResponse(handler: ApiHandler): ApiVersionsResponse {
  return {
    ...response(ErrorCode.UNSUPPORTED_VERSION, new Map()),
    apiKeys: [{ apiKey: ApiKey.ApiVersions, minVersion: handler.minVersion, maxVersion: handler.maxVersion }],
  };
}
