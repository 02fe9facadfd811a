/**
 * Whether an action is allowed, as Kafka's StandardAuthorizer decides: super users may do
 * anything; otherwise the ACLs on the resource (its literal name, the literal `*`, and every
 * prefixed pattern the name starts with) that name the principal (or `User:*`) and the host (or
 * `*`) are looked at, and one DENY among them denies, else one ALLOW allows. ALLOW of READ,
 * WRITE, DELETE or ALTER implies DESCRIBE, and ALLOW of ALTER_CONFIGS implies DESCRIBE_CONFIGS;
 * a DENY denies only its own operation (or ALL). A resource without any ACL at all, for anyone,
 * follows `allow.everyone.if.no.acl.found`; one with ACLs none of which match is denied.
 */
import { AclOperation, Permission, PatternType, WILDCARD, WILDCARD_PRINCIPAL, type AclBinding } from './acl-binding.js';

/** One operation on one resource by one client. */
export interface Action {
  /** `User:alice` */
  readonly principal: string;
  readonly host: string;
  readonly resourceType: number;
  readonly resourceName: string;
  readonly operation: number;
}

export interface Policy {
  /** Principals (`User:admin`) allowed everything. */
  readonly superUsers: ReadonlySet<string>;
  /** Kafka's allow.everyone.if.no.acl.found. */
  readonly allowIfNoAclFound: boolean;
}

const IMPLIES_DESCRIBE: ReadonlySet<number> = new Set([AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER]);
const IMPLIES_DESCRIBE_CONFIGS: ReadonlySet<number> = new Set([AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]);

/** The ACLs of one resource type, by pattern, so a decision looks only at those that can apply. */
interface TypeIndex {
  readonly literal: Map<string, AclBinding[]>;
  readonly prefixed: Map<string, AclBinding[]>;
}

/** A set of ACLs, indexed for decisions. */
export class AclIndex {
  private readonly byType = new Map<number, TypeIndex>();

  constructor(readonly bindings: readonly AclBinding[]) {
    for (const b of bindings) {
      let index = this.byType.get(b.resourceType);
      if (index === undefined) this.byType.set(b.resourceType, (index = { literal: new Map(), prefixed: new Map() }));
      const patterns = b.patternType === PatternType.PREFIXED ? index.prefixed : index.literal;
      const list = patterns.get(b.resourceName);
      if (list === undefined) patterns.set(b.resourceName, [b]);
      else list.push(b);
    }
  }

  /** Every ACL whose pattern covers the resource, whoever it names. */
  *covering(resourceType: number, resourceName: string): Iterable<AclBinding> {
    const index = this.byType.get(resourceType);
    if (index === undefined) return;
    yield* index.literal.get(resourceName) ?? [];
    if (resourceName !== WILDCARD) yield* index.literal.get(WILDCARD) ?? [];
    if (index.prefixed.size === 0) return;
    for (let end = 1; end <= resourceName.length; end++) yield* index.prefixed.get(resourceName.slice(0, end)) ?? [];
  }

  /** The ACLs of a resource type, for a decision over all its resources. */
  ofType(resourceType: number): readonly AclBinding[] {
    const index = this.byType.get(resourceType);
    if (index === undefined) return [];
    return [...index.literal.values(), ...index.prefixed.values()].flat();
  }
}

/** Whether `acl` names the action's principal and host. */
function namesClient(acl: AclBinding, principal: string, host: string): boolean {
  return (acl.principal === principal || acl.principal === WILDCARD_PRINCIPAL) && (acl.host === WILDCARD || acl.host === host);
}

/** Whether `acl`'s operation covers `operation`: implications hold for ALLOW only. */
function coversOperation(acl: AclBinding, operation: number): boolean {
  if (acl.operation === AclOperation.ALL || acl.operation === operation) return true;
  if (acl.permission !== Permission.ALLOW) return false;
  if (operation === AclOperation.DESCRIBE) return IMPLIES_DESCRIBE.has(acl.operation);
  if (operation === AclOperation.DESCRIBE_CONFIGS) return IMPLIES_DESCRIBE_CONFIGS.has(acl.operation);
  return false;
}

export function isAllowed(acls: AclIndex, policy: Policy, action: Action): boolean {
  if (policy.superUsers.has(action.principal)) return true;
  let anyAcl = false;
  let allowed = false;
  for (const acl of acls.covering(action.resourceType, action.resourceName)) {
    anyAcl = true;
    if (!namesClient(acl, action.principal, action.host) || !coversOperation(acl, action.operation)) continue;
    if (acl.permission === Permission.DENY) return false;
    if (acl.permission === Permission.ALLOW) allowed = true;
  }
  return anyAcl ? allowed : policy.allowIfNoAclFound;
}

/**
 * Whether the principal may perform `operation` on some resource of the type, as Kafka's
 * Authorizer.authorizeByResourceType answers (an idempotent producer's WRITE on any topic): a
 * resource no ACL covers would do (tried by a made-up name, which lets super users and the
 * no-ACL default in), or an ALLOW of the operation itself (no implication) on a pattern that no
 * DENY of it covers: a literal DENY of the same name, a prefixed DENY of a prefix of it, or a
 * DENY of `*`, which denies the whole type.
 */
export function isAllowedOnAnyResource(acls: AclIndex, policy: Policy, action: Omit<Action, 'resourceName'>): boolean {
  if (isAllowed(acls, policy, { ...action, resourceName: 'hardcode' })) return true;
  const matching = acls
    .ofType(action.resourceType)
    .filter((acl) => namesClient(acl, action.principal, action.host) && (acl.operation === action.operation || acl.operation === AclOperation.ALL));
  const denied = matching.filter((acl) => acl.permission === Permission.DENY);
  if (denied.some((acl) => acl.patternType === PatternType.LITERAL && acl.resourceName === WILDCARD)) return false;
  const deniedLiteral = new Set(denied.filter((acl) => acl.patternType === PatternType.LITERAL).map((acl) => acl.resourceName));
  const deniedPrefixes = denied.filter((acl) => acl.patternType === PatternType.PREFIXED).map((acl) => acl.resourceName);
  return matching.some((acl) => {
    if (acl.permission !== Permission.ALLOW) return false;
    if (acl.patternType === PatternType.LITERAL && acl.resourceName === WILDCARD) return true;
    if (acl.patternType === PatternType.LITERAL && deniedLiteral.has(acl.resourceName)) return false;
    return !deniedPrefixes.some((prefix) => acl.resourceName.startsWith(prefix));
  });
}
