/** DescribeAcls: the ACLs the filter matches, by resource pattern. Without an authorizer, SECURITY_DISABLED, as Kafka's `AclApis`. */
import { filterProblem, matchesFilter } from '../../acl/acl-filter.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeAclsRequest, DescribeAclsResponse, type DescribeAclsResponseDescribeAclsResource } from '../../protocol/messages/describe-acls.js';
import { defineApi } from '../api-handler.js';
import { filterOf } from '../acl-wire.js';

export const describeAcls = defineApi({
  request: DescribeAclsRequest,
  response: DescribeAclsResponse,
  minVersion: 0,
  maxVersion: 3,
  handle(request, _info, broker): DescribeAclsResponse {
    const { authorizer } = broker;
    if (authorizer === undefined)
      return { throttleTimeMs: 0, errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured on the broker', resources: [] };
    const filter = filterOf(request);
    const problem = filterProblem(filter);
    if (problem !== undefined) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem, resources: [] };
    const resources = new Map<string, DescribeAclsResponseDescribeAclsResource>();
    for (const b of authorizer.bindings) {
      if (!matchesFilter(b, filter)) continue;
      const key = `${b.resourceType}\n${b.patternType}\n${b.resourceName}`;
      let resource = resources.get(key);
      if (resource === undefined)
        resources.set(key, (resource = { resourceType: b.resourceType, resourceName: b.resourceName, patternType: b.patternType, acls: [] }));
      resource.acls.push({ principal: b.principal, host: b.host, operation: b.operation, permissionType: b.permission });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, resources: [...resources.values()] };
  },
});
