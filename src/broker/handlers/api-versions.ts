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
    handle(request, info): ApiVersionsResponse {
      // v3 names the client's software; Kafka refuses names and versions outside its pattern.
      if (info.apiVersion >= 3 && !(SOFTWARE.test(request.clientSoftwareName) && SOFTWARE.test(request.clientSoftwareVersion))) {
        return { ...response(ErrorCode.INVALID_REQUEST), apiKeys: [] };
      }
      const apiKeys = [...table].sort(([a], [b]) => a - b).map(([apiKey, h]) => ({ apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }));
      return { ...response(ErrorCode.NONE), apiKeys };
    },
  });
}

/** Kafka's pattern for a client software name or version. */
const SOFTWARE = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

function response(errorCode: number): Omit<ApiVersionsResponse, 'apiKeys'> {
  return { errorCode, throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [], zkMigrationReady: false };
}

/** Kafka's answer to an ApiVersions version it does not know: v0 layout, listing its own range. */
export function unsupportedApiVersionsResponse(handler: ApiHandler): ApiVersionsResponse {
  return { ...response(ErrorCode.UNSUPPORTED_VERSION), apiKeys: [{ apiKey: ApiKey.ApiVersions, minVersion: handler.minVersion, maxVersion: handler.maxVersion }] };
}
