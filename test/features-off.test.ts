/**
 * What brook does not have yet is answered as Kafka answers with the feature off: ACLs without an
 * authorizer, quotas, delegation tokens,
 * client metrics. On the wire and through kafkajs and @platformatic/kafka.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startBroker, type Broker, type BrokerOptions } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AlterClientQuotasRequest, AlterClientQuotasResponse } from '../src/protocol/messages/alter-client-quotas.js';
import { CreateAclsRequest, CreateAclsResponse } from '../src/protocol/messages/create-acls.js';
import { CreateDelegationTokenRequest, CreateDelegationTokenResponse } from '../src/protocol/messages/create-delegation-token.js';
import { DeleteAclsRequest, DeleteAclsResponse } from '../src/protocol/messages/delete-acls.js';
import { DescribeAclsRequest, DescribeAclsResponse } from '../src/protocol/messages/describe-acls.js';
import { DescribeClientQuotasRequest, DescribeClientQuotasResponse } from '../src/protocol/messages/describe-client-quotas.js';
import { DescribeDelegationTokenRequest, DescribeDelegationTokenResponse } from '../src/protocol/messages/describe-delegation-token.js';
import { ExpireDelegationTokenRequest, ExpireDelegationTokenResponse } from '../src/protocol/messages/expire-delegation-token.js';
import { ListConfigResourcesRequest, ListConfigResourcesResponse } from '../src/protocol/messages/list-config-resources.js';
import { RenewDelegationTokenRequest, RenewDelegationTokenResponse } from '../src/protocol/messages/renew-delegation-token.js';
import { runBrook } from './helpers/cli.js';
import { kafkajs } from './helpers/kafkajs.js';
import { Admin } from './helpers/platformatic.js';
import { tempDataDir } from './helpers/serve-process.js';
import { makeTestCerts, type TestCerts } from './helpers/tls-certs.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

let broker: Broker;
let client: WireClient;
const others: Broker[] = [];

before(async () => {
  broker = await startBroker({ port: 0 });
  client = await WireClient.connect(broker.port);
  await createTopic(client, 'off', 2);
});

after(async () => {
  client.close();
  await Promise.all([broker, ...others].map((b) => b.close()));
});

/** The error codes of a rejected client call, wherever the client nests them. */
function codesOf(err: unknown): unknown[] {
  const e = err as { type?: string; errors?: unknown[]; apiCode?: number; apiId?: string };
  if (e.errors !== undefined) return e.errors.flatMap(codesOf);
  return [e.apiId ?? e.type ?? e.apiCode];
}

async function rejection(call: Promise<unknown>): Promise<unknown[]> {
  try {
    await call;
  } catch (err) {
    return codesOf(err);
  }
  return assert.fail('the call succeeded');
}

test('ACLs: SECURITY_DISABLED, as Kafka answers without an authorizer, on the wire and to kafkajs and @platformatic/kafka', async () => {
  const filter = {
    resourceTypeFilter: 1,
    resourceNameFilter: null,
    patternTypeFilter: 1,
    principalFilter: null,
    hostFilter: null,
    operation: 1,
    permissionType: 1,
  };
  const described = await client.request(DescribeAclsRequest, DescribeAclsResponse, 3, filter);
  assert.deepEqual(
    [described.errorCode, described.errorMessage, described.resources],
    [ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured on the broker', []],
  );
  const acl = { resourceType: 2, resourceName: 'off', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 3 };
  const created = await client.request(CreateAclsRequest, CreateAclsResponse, 3, { creations: [acl, acl] });
  assert.deepEqual(created.results, Array(2).fill({ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.' }));
  const deleted = await client.request(DeleteAclsRequest, DeleteAclsResponse, 3, { filters: [filter] });
  assert.deepEqual(deleted.filterResults, [{ errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured.', matchingAcls: [] }]);

  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  try {
    const anyResource = { resourceType: 1, resourcePatternType: 1, operation: 1, permissionType: 1 } as Parameters<typeof admin.describeAcls>[0];
    assert.deepEqual(await rejection(admin.describeAcls(anyResource)), ['SECURITY_DISABLED']);
  } finally {
    await admin.disconnect();
  }
  const plt = new Admin({ clientId: 'acls', bootstrapBrokers: [broker.bootstrap], retries: 0 });
  try {
    const codes = await rejection(plt.createAcls({ creations: [acl] } as unknown as Parameters<typeof plt.createAcls>[0]));
    assert.ok(codes.includes('SECURITY_DISABLED'), String(codes));
  } finally {
    await plt.close();
  }
});

test('client quotas: none described; an alteration is refused per entry; a filter Kafka refuses is refused alike', async () => {
  const plt = new Admin({ clientId: 'quotas', bootstrapBrokers: [broker.bootstrap], retries: 0 });
  try {
    assert.deepEqual(await plt.describeClientQuotas({ components: [{ entityType: 'user', matchType: 2 }] }), []);
    const codes = await rejection(
      plt.alterClientQuotas({
        entries: [{ entities: [{ entityType: 'user', entityName: 'alice' }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] }],
      }),
    );
    assert.ok(codes.includes('INVALID_REQUEST'), String(codes));
  } finally {
    await plt.close();
  }
  const altered = await client.request(AlterClientQuotasRequest, AlterClientQuotasResponse, 1, {
    validateOnly: false,
    entries: [{ entity: [{ entityType: 'client-id', entityName: null }], ops: [{ key: 'consumer_byte_rate', value: 1, remove: false }] }],
  });
  assert.deepEqual(altered.entries, [
    {
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'brook does not support client quotas: it enforces none, so it stores none',
      entity: [{ entityType: 'client-id', entityName: null }],
    },
  ]);
  const describe = (components: DescribeClientQuotasRequest['components']) =>
    client
      .request(DescribeClientQuotasRequest, DescribeClientQuotasResponse, 1, { components, strict: false })
      .then((r) => [r.errorCode, r.errorMessage, r.entries]);
  assert.deepEqual(await describe([{ entityType: 'user', matchType: 0, match: 'alice' }]), [0, null, []]);
  assert.deepEqual(await describe([{ entityType: 'group', matchType: 2, match: null }]), [
    ErrorCode.UNSUPPORTED_VERSION,
    'Unsupported entity type group',
    null,
  ]);
  assert.deepEqual(await describe([{ entityType: 'user', matchType: 0, match: null }]), [
    ErrorCode.INVALID_REQUEST,
    'Request specified MATCH_TYPE_EXACT, but set match string to null.',
    null,
  ]);
  assert.deepEqual(
    await describe([
      { entityType: 'ip', matchType: 1, match: null },
      { entityType: 'user', matchType: 2, match: null },
    ]),
    [
      ErrorCode.INVALID_REQUEST,
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
      null,
    ],
  );
});

/** Each delegation token API's error code, and the principals CreateDelegationToken names. */
async function tokenAnswers(c: WireClient): Promise<{ codes: number[]; owner: string; requester: string }> {
  const created = await c.request(CreateDelegationTokenRequest, CreateDelegationTokenResponse, 3, {
    ownerPrincipalType: null,
    ownerPrincipalName: null,
    renewers: [],
    maxLifetimeMs: -1n,
  });
  const renewed = await c.request(RenewDelegationTokenRequest, RenewDelegationTokenResponse, 2, { hmac: Buffer.from('x'), renewPeriodMs: -1n });
  const expired = await c.request(ExpireDelegationTokenRequest, ExpireDelegationTokenResponse, 2, { hmac: Buffer.from('x'), expiryTimePeriodMs: -1n });
  const described = await c.request(DescribeDelegationTokenRequest, DescribeDelegationTokenResponse, 3, { owners: null });
  return {
    codes: [created.errorCode, renewed.errorCode, expired.errorCode, described.errorCode],
    owner: `${created.principalType}:${created.principalName}`,
    requester: `${created.tokenRequesterPrincipalType}:${created.tokenRequesterPrincipalName}`,
  };
}

async function otherBroker(options: BrokerOptions): Promise<Broker> {
  const b = await startBroker({ port: 0, ...options });
  others.push(b);
  return b;
}

test('delegation tokens: from plain TCP DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, as Kafka answers before it looks whether tokens are on', async () => {
  const notAllowed = ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED;
  assert.deepEqual(await tokenAnswers(client), {
    codes: [notAllowed, notAllowed, notAllowed, notAllowed],
    owner: 'User:ANONYMOUS',
    requester: 'User:ANONYMOUS',
  });
});

test('delegation tokens: from a SASL user or a TLS client certificate DELEGATION_TOKEN_AUTH_DISABLED, naming that principal', async () => {
  const disabled = ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED;
  const usersFile = join(await tempDataDir(), 'users.json');
  assert.equal((await runBrook(['add-user', '--users-file', usersFile, '--user', 'alice'], 'alice-secret\n')).code, 0);
  const sasl = await otherBroker({ saslUsersFile: usersFile });
  const alice = await WireClient.connect(sasl.port);
  await alice.authenticatePlain('alice', 'alice-secret');
  assert.deepEqual(await tokenAnswers(alice), { codes: [disabled, disabled, disabled, disabled], owner: 'User:alice', requester: 'User:alice' });
  const renewers = await alice.request(CreateDelegationTokenRequest, CreateDelegationTokenResponse, 3, {
    ownerPrincipalType: 'User',
    ownerPrincipalName: 'bob',
    renewers: [{ principalType: 'Group', principalName: 'ops' }],
    maxLifetimeMs: -1n,
  });
  assert.deepEqual([renewers.errorCode, renewers.principalName, renewers.tokenRequesterPrincipalName], [ErrorCode.INVALID_PRINCIPAL_TYPE, 'bob', 'alice']);
  alice.close();

  const certs: TestCerts = await makeTestCerts();
  const tls = await otherBroker({ tls: { cert: certs.cert, key: certs.key, ca: certs.ca, clientAuth: 'requested' } });
  const certified = await WireClient.connectTls(tls.port, { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey });
  assert.deepEqual(await tokenAnswers(certified), {
    codes: [disabled, disabled, disabled, disabled],
    owner: 'User:CN=brook test client',
    requester: 'User:CN=brook test client',
  });
  certified.close();
  const anonymous = await WireClient.connectTls(tls.port, { ca: certs.ca });
  assert.deepEqual((await tokenAnswers(anonymous)).codes, Array(4).fill(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED));
  anonymous.close();
});

test('no client metrics resources', async () => {
  const metrics = await client.request(ListConfigResourcesRequest, ListConfigResourcesResponse, 0, { resourceTypes: [] });
  assert.deepEqual([metrics.errorCode, metrics.configResources], [0, []]);
});
