/** ACL bindings and filters as the ACL APIs carry them. */
import type { AclBinding } from '../acl/acl-binding.js';
import type { AclFilter } from '../acl/acl-filter.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { DescribeAclsRequest } from '../protocol/messages/describe-acls.js';
import type { CreateAclsRequestAclCreation } from '../protocol/messages/create-acls.js';

/** Kafka's answer to CreateAcls and DeleteAcls from a broker without an authorizer (DescribeAcls says `on the broker`). */
export const NO_AUTHORIZER = { errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.' } as const;

/** A DescribeAcls request, or one DeleteAcls filter: the fields are the same. */
export function filterOf(f: Omit<DescribeAclsRequest, never>): AclFilter {
  return {
    resourceType: f.resourceTypeFilter,
    resourceName: f.resourceNameFilter,
    patternType: f.patternTypeFilter,
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: f.operation,
    permission: f.permissionType,
  };
}

export function bindingOf(c: CreateAclsRequestAclCreation): AclBinding {
  return {
    resourceType: c.resourceType,
    resourceName: c.resourceName,
    patternType: c.resourcePatternType,
    principal: c.principal,
    host: c.host,
    operation: c.operation,
    permission: c.permissionType,
  };
}
