/**
 * DescribeUserScramCredentials: the mechanisms and iterations of the SASL users file's users.
 * Without the file there are none, and each user named is RESOURCE_NOT_FOUND, as in Kafka.
 */
import { describeUsers } from '../../auth/credential-store.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse } from '../../protocol/messages/describe-user-scram-credentials.js';
import { defineApi } from '../api-handler.js';

export const describeUserScramCredentials = defineApi({
  request: DescribeUserScramCredentialsRequest,
  response: DescribeUserScramCredentialsResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request, _info, broker): DescribeUserScramCredentialsResponse {
    const described = describeUsers(broker.credentials?.users ?? new Map(), request.users?.map((u) => u.name) ?? null);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      results: described.map(({ user, errorCode, errorMessage, credentials }) => ({ user, errorCode, errorMessage, credentialInfos: [...credentials] })),
    };
  },
});
