/** DescribeAcls: brook has no authorizer, so SECURITY_DISABLED, as Kafka answers without one. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeAclsRequest, DescribeAclsResponse } from '../../protocol/messages/describe-acls.js';
import { defineApi } from '../api-handler.js';

export const describeAcls = defineApi({
  request: DescribeAclsRequest,
  response: DescribeAclsResponse,
  minVersion: 0,
  maxVersion: 3,
  handle(): DescribeAclsResponse {
    return { throttleTimeMs: 0, errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured on the broker', resources: [] };
  },
});
