/**
 * DeleteAcls: every ACL each filter matches is removed, stored before the answer, and listed under
 * each filter that matched it; a filter with unknown parts is INVALID_REQUEST. Without an
 * authorizer, SECURITY_DISABLED, as Kafka's `AclApis`.
 */
import { filterProblem } from '../../acl/acl-filter.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { DeleteAclsRequest, DeleteAclsResponse } from '../../protocol/messages/delete-acls.js';
import { defineApi } from '../api-handler.js';
import { filterOf, NO_AUTHORIZER } from '../acl-wire.js';

export const deleteAcls = defineApi({
  request: DeleteAclsRequest,
  response: DeleteAclsResponse,
  minVersion: 0,
  maxVersion: 3,
  async handle(request, _info, broker): Promise<DeleteAclsResponse> {
    const { authorizer } = broker;
    if (authorizer === undefined) return { throttleTimeMs: 0, filterResults: request.filters.map(() => ({ ...NO_AUTHORIZER, matchingAcls: [] })) };
    const filters = request.filters.map(filterOf);
    const problems = filters.map(filterProblem);
    const deleted = await authorizer.delete(filters.filter((_, i) => problems[i] === undefined));
    let next = 0;
    const filterResults = problems.map((problem) => {
      if (problem !== undefined) return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem, matchingAcls: [] };
      const matchingAcls = deleted[next++]!.map((b) => ({
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        resourceType: b.resourceType,
        resourceName: b.resourceName,
        patternType: b.patternType,
        principal: b.principal,
        host: b.host,
        operation: b.operation,
        permissionType: b.permission,
      }));
      return { errorCode: ErrorCode.NONE, errorMessage: null, matchingAcls };
    });
    return { throttleTimeMs: 0, filterResults };
  },
});
