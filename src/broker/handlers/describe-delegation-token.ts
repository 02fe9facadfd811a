/** DescribeDelegationToken: no delegation tokens; answered as Kafka's `KafkaApis.handleDescribeTokensRequest` answers with them off (see delegation-tokens.ts). */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeDelegationTokenRequest, DescribeDelegationTokenResponse } from '../../protocol/messages/describe-delegation-token.js';
import { defineApi } from '../api-handler.js';
import { tokenRequestsAllowed } from '../delegation-tokens.js';

export const describeDelegationToken = defineApi({
  request: DescribeDelegationTokenRequest,
  response: DescribeDelegationTokenResponse,
  minVersion: 0,
  maxVersion: 3,
  featureOff: true,
  handle(_request, info, broker): DescribeDelegationTokenResponse {
    const errorCode = tokenRequestsAllowed(info.connection, broker) ? ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED : ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED;
    return { errorCode, tokens: [], throttleTimeMs: 0 };
  },
});
