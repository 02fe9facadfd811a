/**
 * Which ACLs a DescribeAcls or DeleteAcls filter selects, as Kafka's AclBindingFilter matches
 * them, and what makes a binding (CreateAcls) or a filter unacceptable, with Kafka's messages.
 */
import { AclOperation, CLUSTER_NAME, PatternType, Permission, ResourceType, WILDCARD, type AclBinding } from './acl-binding.js';

/** A binding with each part optional: ANY codes and null strings match everything. */
export interface AclFilter {
  readonly resourceType: number;
  /** null: any name. */
  readonly resourceName: string | null;
  /** ANY: any pattern with the name; MATCH: every pattern that covers the name (literal, `*`, prefixes). */
  readonly patternType: number;
  readonly principal: string | null;
  readonly host: string | null;
  readonly operation: number;
  readonly permission: number;
}

const known = (codes: Readonly<Record<string, number>>) => {
  const values = new Set(Object.values(codes));
  return (code: number): boolean => code !== 0 && values.has(code);
};
const knownResourceType = known(ResourceType);
const knownPatternType = known(PatternType);
const knownOperation = known(AclOperation);
const knownPermission = known(Permission);

export function matchesFilter(b: AclBinding, f: AclFilter): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== b.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== b.patternType) return false;
  if (f.resourceName !== null && !nameMatches(b, f.resourceName, f.patternType)) return false;
  if (f.principal !== null && f.principal !== b.principal) return false;
  if (f.host !== null && f.host !== b.host) return false;
  if (f.operation !== AclOperation.ANY && f.operation !== b.operation) return false;
  return f.permission === Permission.ANY || f.permission === b.permission;
}

function nameMatches(b: AclBinding, name: string, patternType: number): boolean {
  if (patternType !== PatternType.MATCH) return name === b.resourceName;
  return b.patternType === PatternType.LITERAL ? name === b.resourceName || b.resourceName === WILDCARD : name.startsWith(b.resourceName);
}

/** Why Kafka (`AclControlManager.validateFilter`) refuses a filter (INVALID_REQUEST): a part it cannot read. */
export function filterProblem(f: AclFilter): string | undefined {
  if (!knownResourceType(f.resourceType) || !knownPatternType(f.patternType)) return 'Unknown patternFilter.';
  if (!knownOperation(f.operation) || !knownPermission(f.permission)) return 'Unknown entryFilter.';
  return undefined;
}

/** Why Kafka (`AclControlManager.validateNewAcl`) refuses to create a binding (INVALID_REQUEST). */
export function bindingProblem(b: AclBinding): string | undefined {
  if (!knownResourceType(b.resourceType) || b.resourceType === ResourceType.ANY) return `Invalid resourceType ${b.resourceType}`;
  if (b.patternType !== PatternType.LITERAL && b.patternType !== PatternType.PREFIXED) return `Invalid patternType ${b.patternType}`;
  if (!knownOperation(b.operation) || b.operation === AclOperation.ANY) return `Invalid operation ${b.operation}`;
  if (b.permission !== Permission.ALLOW && b.permission !== Permission.DENY) return `Invalid permissionType ${b.permission}`;
  if (b.resourceName === '') return 'Invalid empty resource name specified.';
  if (b.resourceType === ResourceType.CLUSTER && b.resourceName !== CLUSTER_NAME) return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  const colon = b.principal.indexOf(':');
  if (colon <= 0 || colon === b.principal.length - 1) return `Could not parse principal from \`${b.principal}\`: expected a principal such as User:alice`;
  return undefined;
}

/** Whether two bindings are the same ACL. */
export function sameBinding(a: AclBinding, b: AclBinding): boolean {
  return (
    a.resourceType === b.resourceType &&
    a.resourceName === b.resourceName &&
    a.patternType === b.patternType &&
    a.principal === b.principal &&
    a.host === b.host &&
    a.operation === b.operation &&
    a.permission === b.permission
  );
}
