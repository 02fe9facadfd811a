/** CreateAcls: brook has no authorizer, so each creation is SECURITY_DISABLED, as Kafka answers without one. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { CreateAclsRequest, CreateAclsResponse } from '../../protocol/messages/create-acls.js';
import { defineApi } from '../api-handler.js';

export const createAcls = defineApi({
  request: CreateAclsRequest,
  response: CreateAclsResponse,
  minVersion: 0,
  maxVersion: 3,
  handle(request): CreateAclsResponse {
    return {
      throttleTimeMs: 0,
      results: request.creations.map(() => ({ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.' })),
    };
  },
});
