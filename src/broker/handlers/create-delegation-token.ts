/**
 * CreateDelegationToken: brook has no delegation tokens. As Kafka: a client it does not know
 * (plain TCP, anonymous TLS) is DELEGATION_TOKEN_REQUEST_NOT_ALLOWED; renewers that are not
 * users INVALID_PRINCIPAL_TYPE; otherwise DELEGATION_TOKEN_AUTH_DISABLED, as with tokens off.
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
  handle(request, info, broker): CreateDelegationTokenResponse {
    const requester = principalOf(info.connection, broker);
    const owner = request.ownerPrincipalName === null || request.ownerPrincipalName === '' ? requester : { type: request.ownerPrincipalType ?? '', name: request.ownerPrincipalName };
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
