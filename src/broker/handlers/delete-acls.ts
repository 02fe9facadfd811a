/** DeleteAcls: brook has no authorizer, so each filter is SECURITY_DISABLED, as Kafka answers without one. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DeleteAclsRequest, DeleteAclsResponse } from '../../protocol/messages/delete-acls.js';
import { defineApi } from '../api-handler.js';

export const deleteAcls = defineApi({
  request: DeleteAclsRequest,
  response: DeleteAclsResponse,
  minVersion: 0,
  maxVersion: 3,
  handle(request): DeleteAclsResponse {
    return {
      throttleTimeMs: 0,
      filterResults: request.filters.map(() => ({ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.', matchingAcls: [] })),
    };
  },
});
