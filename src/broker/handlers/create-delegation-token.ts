/**
 * CreateDelegationToken: no delegation tokens; answered as Kafka's `KafkaApis.handleCreateTokenRequest` answers with them off (see
 * delegation-tokens.ts); from a known client, renewers that are not users are INVALID_PRINCIPAL_TYPE
 * before tokens being off is told.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { CreateDelegationTokenRequest, CreateDelegationTokenResponse } from '../../protocol/messages/create-delegation-token.js';
import { defineApi } from '../api-handler.js';
import { tokenRequestsAllowed } from '../delegation-tokens.js';
import { principalOf } from '../principal.js';

export const createDelegationToken = defineApi({
  request: CreateDelegationTokenRequest,
  response: CreateDelegationTokenResponse,
  minVersion: 0,
  maxVersion: 3,
  featureOff: true,
  handle(request, info, broker): CreateDelegationTokenResponse {
    const requester = principalOf(info.connection, broker);
    const owner =
      request.ownerPrincipalName === null || request.ownerPrincipalName === ''
        ? requester
        : { type: request.ownerPrincipalType ?? '', name: request.ownerPrincipalName };
    const answer = (errorCode: number, timestamps: bigint): CreateDelegationTokenResponse => ({
      errorCode,
      principalType: owner.type,
      principalName: owner.name,
      tokenRequesterPrincipalType: requester.type,
      tokenRequesterPrincipalName: requester.name,
      issueTimestampMs: timestamps,
      expiryTimestampMs: timestamps,
      maxTimestampMs: timestamps,
      tokenId: '',
      hmac: Buffer.alloc(0),
      throttleTimeMs: 0,
    });
    // The broker's own refusals carry -1 timestamps; the controller's, zeros.
    if (!tokenRequestsAllowed(info.connection, broker)) return answer(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, -1n);
    if (request.renewers.some((r) => r.principalType !== 'User')) return answer(ErrorCode.INVALID_PRINCIPAL_TYPE, -1n);
    return answer(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, 0n);
  },
});
