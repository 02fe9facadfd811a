/**
 * AlterClientQuotas: brook enforces no quotas, so it takes none. Each entry is refused with the
 * error Kafka gives a quota key it does not know, INVALID_REQUEST, saying so.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { AlterClientQuotasRequest, AlterClientQuotasResponse } from '../../protocol/messages/alter-client-quotas.js';
import { defineApi } from '../api-handler.js';

const NO_QUOTAS = 'brook does not support client quotas: it enforces none, so it stores none';

export const alterClientQuotas = defineApi({
  request: AlterClientQuotasRequest,
  response: AlterClientQuotasResponse,
  minVersion: 0,
  maxVersion: 1,
  featureOff: true,
  handle(request): AlterClientQuotasResponse {
    return {
      throttleTimeMs: 0,
      entries: request.entries.map(({ entity }) => ({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: NO_QUOTAS, entity: entity.map((e) => ({ ...e })) })),
    };
  },
});
