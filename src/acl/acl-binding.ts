/**
 * Kafka's ACL model: what a binding holds and the codes each part has on the wire
 * (ResourceType, PatternType, AclOperation, AclPermissionType), with the names Kafka spells them.
 */

export const ResourceType = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7 } as const;
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export const AclOperation = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
} as const;
export const Permission = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

/** The resource name an ACL on every resource of its type has (literal pattern). */
export const WILDCARD = '*';
/** The principal an ACL for every user names. */
export const WILDCARD_PRINCIPAL = 'User:*';
/** The one name a CLUSTER resource has. */
export const CLUSTER_NAME = 'kafka-cluster';

/** One ACL: who (principal, host) is allowed or denied what operation on which resources. */
export interface AclBinding {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly patternType: number;
  /** `Type:name`, as `User:alice`, or `User:*`. */
  readonly principal: string;
  /** A client address, or `*`. */
  readonly host: string;
  readonly operation: number;
  readonly permission: number;
}

/** The operations each resource type has, as Kafka's AclEntry lists them (authorized operations report these). */
export const SUPPORTED_OPERATIONS: Readonly<Record<number, readonly number[]>> = {
  [ResourceType.TOPIC]: [
    AclOperation.READ,
    AclOperation.WRITE,
    AclOperation.CREATE,
    AclOperation.DESCRIBE,
    AclOperation.DELETE,
    AclOperation.ALTER,
    AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS,
  ],
  [ResourceType.GROUP]: [AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE],
  [ResourceType.CLUSTER]: [
    AclOperation.CREATE,
    AclOperation.CLUSTER_ACTION,
    AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS,
    AclOperation.IDEMPOTENT_WRITE,
    AclOperation.ALTER,
    AclOperation.DESCRIBE,
  ],
  [ResourceType.TRANSACTIONAL_ID]: [AclOperation.DESCRIBE, AclOperation.WRITE],
  [ResourceType.DELEGATION_TOKEN]: [AclOperation.DESCRIBE],
  [ResourceType.USER]: [AclOperation.CREATE_TOKENS, AclOperation.DESCRIBE_TOKENS],
};

const nameOf = (codes: Readonly<Record<string, number>>) => {
  const names = new Map(Object.entries(codes).map(([name, code]) => [code, name]));
  return (code: number): string => names.get(code) ?? `UNKNOWN(${code})`;
};

export const resourceTypeName = nameOf(ResourceType);
export const patternTypeName = nameOf(PatternType);
export const operationName = nameOf(AclOperation);
export const permissionName = nameOf(Permission);
