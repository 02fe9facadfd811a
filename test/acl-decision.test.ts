import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AclOperation as Op, Permission, PatternType, ResourceType, type AclBinding } from '../src/acl/acl-binding.js';
import { AclIndex, isAllowed, isAllowedOnAnyResource, type Action, type Policy } from '../src/acl/acl-decision.js';

// Small alphabets, so that generated ACLs often apply to the generated action.
const NAMES = ['a', 'ab', 'abc', 'b', 'ba'];
const PRINCIPALS = ['User:alice', 'User:bob'];
const HOSTS = ['10.0.0.1', '10.0.0.2'];
const TYPES = [ResourceType.TOPIC, ResourceType.GROUP];
const OPERATIONS = [Op.ALL, Op.READ, Op.WRITE, Op.DELETE, Op.ALTER, Op.DESCRIBE, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS, Op.CREATE];

const arbBinding: fc.Arbitrary<AclBinding> = fc.record({
  resourceType: fc.constantFrom(...TYPES),
  resourceName: fc.constantFrom(...NAMES, '*'),
  patternType: fc.constantFrom(PatternType.LITERAL, PatternType.PREFIXED),
  principal: fc.constantFrom(...PRINCIPALS, 'User:*'),
  host: fc.constantFrom(...HOSTS, '*'),
  operation: fc.constantFrom(...OPERATIONS),
  permission: fc.constantFrom(Permission.ALLOW, Permission.DENY),
});
const arbAction: fc.Arbitrary<Action> = fc.record({
  principal: fc.constantFrom(...PRINCIPALS),
  host: fc.constantFrom(...HOSTS),
  resourceType: fc.constantFrom(...TYPES),
  resourceName: fc.constantFrom(...NAMES),
  operation: fc.constantFrom(...OPERATIONS.filter((op) => op !== Op.ALL)),
});
const arbPolicy: fc.Arbitrary<Policy> = fc.record({
  superUsers: fc.subarray(PRINCIPALS).map((users) => new Set(users)),
  allowIfNoAclFound: fc.boolean(),
});
const arbAcls = fc.array(arbBinding, { maxLength: 12 });

/** The rules read straight off Kafka's documentation, over a flat list. */
function model(acls: readonly AclBinding[], policy: Policy, a: Action): boolean {
  if (policy.superUsers.has(a.principal)) return true;
  const onResource = acls.filter(
    (acl) =>
      acl.resourceType === a.resourceType &&
      (acl.patternType === PatternType.LITERAL ? acl.resourceName === a.resourceName || acl.resourceName === '*' : a.resourceName.startsWith(acl.resourceName)),
  );
  if (onResource.length === 0) return policy.allowIfNoAclFound;
  const forClient = onResource.filter((acl) => [a.principal, 'User:*'].includes(acl.principal) && [a.host, '*'].includes(acl.host));
  const exact = (acl: AclBinding): boolean => acl.operation === Op.ALL || acl.operation === a.operation;
  if (forClient.some((acl) => acl.permission === Permission.DENY && exact(acl))) return false;
  const implied = (acl: AclBinding): boolean =>
    (a.operation === Op.DESCRIBE && [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER].includes(acl.operation as 3)) ||
    (a.operation === Op.DESCRIBE_CONFIGS && acl.operation === Op.ALTER_CONFIGS);
  return forClient.some((acl) => acl.permission === Permission.ALLOW && (exact(acl) || implied(acl)));
}

const decide = (acls: readonly AclBinding[], policy: Policy, action: Action): boolean => isAllowed(new AclIndex(acls), policy, action);

test('decisions agree with a flat model of the rules', () => {
  fc.assert(
    fc.property(arbAcls, arbPolicy, arbAction, (acls, policy, action) => {
      assert.equal(decide(acls, policy, action), model(acls, policy, action));
    }),
    { numRuns: 3000 },
  );
});

test('a matching DENY wins over any ALLOW, but never over a super user', () => {
  fc.assert(
    fc.property(
      arbAcls,
      arbPolicy,
      arbAction,
      fc.boolean(),
      fc.boolean(),
      fc.constantFrom('literal', 'wildcard', 'prefix'),
      (acls, policy, action, anyUser, anyHost, how) => {
        const deny: AclBinding = {
          resourceType: action.resourceType,
          resourceName: how === 'literal' ? action.resourceName : how === 'wildcard' ? '*' : action.resourceName.slice(0, 1),
          patternType: how === 'prefix' ? PatternType.PREFIXED : PatternType.LITERAL,
          principal: anyUser ? 'User:*' : action.principal,
          host: anyHost ? '*' : action.host,
          operation: action.operation,
          permission: Permission.DENY,
        };
        const allow: AclBinding = { ...deny, operation: Op.ALL, permission: Permission.ALLOW };
        assert.equal(decide([...acls, allow, deny], policy, action), policy.superUsers.has(action.principal));
      },
    ),
  );
});

test('ALLOW of READ, WRITE, DELETE or ALTER implies DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS; DENY implies nothing', () => {
  const policy: Policy = { superUsers: new Set(), allowIfNoAclFound: false };
  const acl = (operation: number, permission: number = Permission.ALLOW): AclBinding => ({
    resourceType: ResourceType.TOPIC,
    resourceName: 't',
    patternType: PatternType.LITERAL,
    principal: 'User:alice',
    host: '*',
    operation,
    permission,
  });
  const may = (acls: AclBinding[], operation: number): boolean =>
    decide(acls, policy, { principal: 'User:alice', host: '10.0.0.1', resourceType: ResourceType.TOPIC, resourceName: 't', operation });
  for (const op of [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER, Op.DESCRIBE, Op.ALL]) assert.equal(may([acl(op)], Op.DESCRIBE), true, `ALLOW ${op}`);
  for (const op of [Op.CREATE, Op.DESCRIBE_CONFIGS, Op.ALTER_CONFIGS]) assert.equal(may([acl(op)], Op.DESCRIBE), false, `ALLOW ${op}`);
  assert.equal(may([acl(Op.ALTER_CONFIGS)], Op.DESCRIBE_CONFIGS), true);
  assert.equal(may([acl(Op.DESCRIBE_CONFIGS)], Op.ALTER_CONFIGS), false);
  assert.equal(may([acl(Op.WRITE)], Op.READ), false);
  assert.equal(may([acl(Op.ALL), acl(Op.READ, Permission.DENY)], Op.DESCRIBE), true, 'a DENY of READ leaves DESCRIBE');
  assert.equal(may([acl(Op.ALL), acl(Op.READ, Permission.DENY)], Op.READ), false);
});

test('a resource without ACLs follows allow.everyone.if.no.acl.found; one with ACLs for others is denied', () => {
  const other: AclBinding = {
    resourceType: ResourceType.TOPIC,
    resourceName: 'pay',
    patternType: PatternType.PREFIXED,
    principal: 'User:bob',
    host: '*',
    operation: Op.READ,
    permission: Permission.ALLOW,
  };
  const read = (resourceName: string): Action => ({
    principal: 'User:alice',
    host: '10.0.0.1',
    resourceType: ResourceType.TOPIC,
    resourceName,
    operation: Op.READ,
  });
  for (const allowIfNoAclFound of [false, true]) {
    const policy = { superUsers: new Set<string>(), allowIfNoAclFound };
    assert.equal(decide([other], policy, read('orders')), allowIfNoAclFound);
    assert.equal(decide([other], policy, read('payments')), false);
    assert.equal(decide([other], policy, { ...read('payments'), resourceType: ResourceType.GROUP }), allowIfNoAclFound, 'ACLs are per resource type');
  }
});

test('WRITE on any topic: an ALLOW of WRITE not covered by a DENY of it, as Kafka judges an idempotent producer', () => {
  const policy: Policy = { superUsers: new Set(['User:root']), allowIfNoAclFound: false };
  const acl = (resourceName: string, patternType: number, operation: number, permission: number): AclBinding => ({
    resourceType: ResourceType.TOPIC,
    resourceName,
    patternType,
    principal: 'User:alice',
    host: '*',
    operation,
    permission,
  });
  const L = PatternType.LITERAL;
  const P = PatternType.PREFIXED;
  const may = (acls: AclBinding[], principal = 'User:alice'): boolean =>
    isAllowedOnAnyResource(new AclIndex(acls), policy, { principal, host: '10.0.0.1', resourceType: ResourceType.TOPIC, operation: Op.WRITE });
  assert.equal(may([]), false);
  assert.equal(may([], 'User:root'), true);
  assert.equal(
    isAllowedOnAnyResource(new AclIndex([]), { ...policy, allowIfNoAclFound: true }, { principal: 'User:alice', host: 'h', resourceType: 2, operation: 4 }),
    true,
  );
  assert.equal(may([acl('t', L, Op.WRITE, Permission.ALLOW)]), true);
  assert.equal(may([acl('t', L, Op.ALL, Permission.ALLOW)]), true);
  assert.equal(may([acl('t', L, Op.READ, Permission.ALLOW)]), false, 'no implication');
  assert.equal(may([acl('t', L, Op.WRITE, Permission.ALLOW), acl('t', L, Op.WRITE, Permission.DENY)]), false);
  assert.equal(may([acl('t', L, Op.WRITE, Permission.ALLOW), acl('u', L, Op.WRITE, Permission.DENY)]), true);
  assert.equal(may([acl('pay-in', P, Op.WRITE, Permission.ALLOW), acl('pay', P, Op.WRITE, Permission.DENY)]), false);
  assert.equal(may([acl('pay-in', L, Op.WRITE, Permission.ALLOW), acl('pay', P, Op.WRITE, Permission.DENY)]), false);
  assert.equal(may([acl('pay', P, Op.WRITE, Permission.ALLOW), acl('pay-in', P, Op.WRITE, Permission.DENY)]), true);
  assert.equal(may([acl('*', L, Op.WRITE, Permission.ALLOW), acl('t', L, Op.WRITE, Permission.DENY)]), true);
  assert.equal(may([acl('t', L, Op.WRITE, Permission.ALLOW), acl('*', L, Op.WRITE, Permission.DENY)]), false);
  assert.equal(may([{ ...acl('t', L, Op.WRITE, Permission.ALLOW), principal: 'User:bob' }]), false);
});
