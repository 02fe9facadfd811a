/** Kafka's checks of SCRAM credential alterations, as pure functions: one answer per user, and what passes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { alterationResults, checkAlterations, describeUsers, type Alterations } from '../src/auth/credential-store.js';
import { scramCredential } from '../src/auth/scram.js';
import { ErrorCode } from '../src/protocol/error-codes.js';

const user = fc.constantFrom('', 'alice', 'bob', 'carol');
const deletion = fc.record({ name: user, mechanism: fc.integer({ min: 0, max: 3 }) });
const upsertion = fc.record({
  name: user,
  mechanism: fc.integer({ min: 0, max: 3 }),
  iterations: fc.constantFrom(1000, 4096, 8192, 16384, 20000),
  salt: fc.constant(Buffer.from('salt')),
  saltedPassword: fc.constant(Buffer.alloc(32, 7)),
});
const request: fc.Arbitrary<Alterations> = fc.record({ deletions: fc.array(deletion, { maxLength: 4 }), upsertions: fc.array(upsertion, { maxLength: 4 }) });
/** Which (user, mechanism) credentials exist: alice has SCRAM-SHA-256 only. */
const exists = (name: string, mechanism: string): boolean => name === 'alice' && mechanism === 'SCRAM-SHA-256';

test('every user named gets exactly one result; one named twice never passes; what passes is valid', () => {
  fc.assert(
    fc.property(request, (r) => {
      const results = alterationResults(checkAlterations(r, exists));
      const named = [...r.deletions, ...r.upsertions].map((a) => a.name);
      assert.deepEqual(results.map((x) => x.user).sort(), [...new Set(named)].sort());
      for (const { user: name, errorCode } of results) {
        if (errorCode !== ErrorCode.NONE) continue;
        assert.equal(named.filter((n) => n === name).length, 1, `${name} named once`);
        assert.notEqual(name, '');
        const upserted = r.upsertions.find((a) => a.name === name);
        const deleted = r.deletions.find((a) => a.name === name);
        assert.ok([1, 2].includes((upserted ?? deleted)!.mechanism));
        if (upserted !== undefined) assert.ok(upserted.iterations >= 4096 && upserted.iterations <= 16384);
        else assert.equal(deleted!.mechanism, 1, 'only existing credentials are deleted');
      }
    }),
  );
});

test('without SCRAM, nothing passes: each user is refused, UNSUPPORTED_VERSION unless named twice first', () => {
  fc.assert(
    fc.property(request, (r) => {
      const results = alterationResults(checkAlterations(r, () => false, 'off'));
      assert.ok(results.every((x) => x.errorCode === ErrorCode.UNSUPPORTED_VERSION || x.errorCode === ErrorCode.DUPLICATE_RESOURCE));
    }),
  );
});

test('describing: every user given null or none, each name once otherwise, duplicates and unknown users refused', () => {
  const users = new Map([['alice', new Map([['SCRAM-SHA-512' as const, scramCredential('SCRAM-SHA-512', 'pw', 5000)]])]]);
  fc.assert(
    fc.property(fc.array(user, { maxLength: 5 }), (names) => {
      const described = describeUsers(users, names);
      if (names.length === 0)
        return assert.deepEqual(
          described.map((d) => [d.user, d.credentials]),
          [['alice', [{ mechanism: 2, iterations: 5000 }]]],
        );
      assert.deepEqual(
        described.map((d) => d.user),
        [...new Set(names)],
      );
      for (const d of described) {
        const twice = names.filter((n) => n === d.user).length > 1;
        const code = twice ? ErrorCode.DUPLICATE_RESOURCE : d.user === 'alice' ? ErrorCode.NONE : ErrorCode.RESOURCE_NOT_FOUND;
        assert.equal(d.errorCode, code, d.user);
      }
    }),
  );
  assert.deepEqual(
    describeUsers(users, null).map((d) => d.user),
    ['alice'],
  );
});
