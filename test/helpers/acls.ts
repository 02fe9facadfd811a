/** ACL bindings and filters as the ACL APIs carry them, for tests. */
import { PatternType, Permission, ResourceType } from '../../src/acl/acl-binding.js';
import type { CreateAclsRequestAclCreation } from '../../src/protocol/messages/create-acls.js';
import type { DescribeAclsRequest } from '../../src/protocol/messages/describe-acls.js';

/** An ALLOW of `operation` on the literal topic `resourceName` from any host, with `more` over it. */
export function topicAcl(
  resourceName: string,
  principal: string,
  operation: number,
  more: Partial<CreateAclsRequestAclCreation> = {},
): CreateAclsRequestAclCreation {
  return {
    resourceType: ResourceType.TOPIC,
    resourceName,
    resourcePatternType: PatternType.LITERAL,
    principal,
    host: '*',
    operation,
    permissionType: Permission.ALLOW,
    ...more,
  };
}

/** The filter matching every ACL: a DescribeAcls request, or one DeleteAcls filter. */
export const ANY_ACL: DescribeAclsRequest = {
  resourceTypeFilter: ResourceType.ANY,
  resourceNameFilter: null,
  patternTypeFilter: PatternType.ANY,
  principalFilter: null,
  hostFilter: null,
  operation: 1,
  permissionType: Permission.ANY,
};
