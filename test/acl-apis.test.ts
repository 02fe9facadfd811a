/** CreateAcls, DescribeAcls and DeleteAcls with the authorizer on: Kafka's validation and filters, on the wire and through kafkajs; ACLs kept across a restart. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { CreateAclsRequest, CreateAclsResponse } from '../src/protocol/messages/create-acls.js';
import { DeleteAclsRequest, DeleteAclsResponse } from '../src/protocol/messages/delete-acls.js';
import { DescribeAclsRequest, DescribeAclsResponse, type DescribeAclsRequest as Filter } from '../src/protocol/messages/describe-acls.js';
import { AclOperation as Op, PatternType, Permission, ResourceType } from '../src/acl/acl-binding.js';
import { ANY_ACL, topicAcl } from './helpers/acls.js';
import { kafkajs } from './helpers/kafkajs.js';
import { tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';

const brokers: Broker[] = [];
after(() => Promise.all(brokers.map((b) => b.close())));

async function broker(dataDir?: string): Promise<Broker> {
  // Clients here connect without SASL, as User:ANONYMOUS, whom the ACL APIs need to be allowed.
  const b = await startBroker({ port: 0, authorizer: true, superUsers: ['User:ANONYMOUS'], dataDir: dataDir ?? (await tempDataDir()) });
  brokers.push(b);
  return b;
}

const acl = topicAcl;
const ANY = ANY_ACL;

/** The described ACLs flattened, sorted, as `TYPE/PATTERN/name principal host op perm`. */
async function described(client: WireClient, filter: Partial<Filter> = {}): Promise<string[]> {
  const r = await client.request(DescribeAclsRequest, DescribeAclsResponse, 3, { ...ANY, ...filter });
  assert.equal(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
  return r.resources
    .flatMap((res) =>
      res.acls.map((a) => `${res.resourceType}/${res.patternType}/${res.resourceName} ${a.principal} ${a.host} ${a.operation} ${a.permissionType}`),
    )
    .sort();
}

test('created ACLs are described by Kafka filters, deleted by them, and kept across a restart', async () => {
  const dataDir = await tempDataDir();
  const b = await broker(dataDir);
  let client = await WireClient.connect(b.port);
  const creations = [
    acl('orders', 'User:alice', Op.WRITE),
    acl('orders', 'User:alice', Op.WRITE),
    acl('pay', 'User:bob', Op.READ, { resourcePatternType: PatternType.PREFIXED }),
    acl('*', 'User:*', Op.DESCRIBE, { permissionType: Permission.DENY, host: '10.0.0.9' }),
    acl('app', 'User:bob', Op.READ, { resourceType: ResourceType.GROUP }),
    acl('kafka-cluster', 'User:admin', Op.ALTER, { resourceType: ResourceType.CLUSTER }),
  ];
  const created = await client.request(CreateAclsRequest, CreateAclsResponse, 3, { creations });
  assert.deepEqual(
    created.results.map((r) => r.errorCode),
    creations.map(() => ErrorCode.NONE),
  );
  const all = await described(client);
  assert.equal(all.length, 5, 'the same ACL twice is one');
  assert.deepEqual(await described(client, { resourceTypeFilter: ResourceType.TOPIC, resourceNameFilter: 'payments', patternTypeFilter: PatternType.MATCH }), [
    '2/3/* User:* 10.0.0.9 8 2',
    '2/4/pay User:bob * 3 3',
  ]);
  assert.deepEqual(await described(client, { resourceNameFilter: 'payments', patternTypeFilter: PatternType.ANY }), [], 'ANY matches the name exactly');
  assert.deepEqual(await described(client, { principalFilter: 'User:alice' }), ['2/3/orders User:alice * 4 3']);
  assert.deepEqual(await described(client, { operation: Op.READ, permissionType: Permission.ALLOW }), ['2/4/pay User:bob * 3 3', '3/3/app User:bob * 3 3']);

  const deleted = await client.request(DeleteAclsRequest, DeleteAclsResponse, 3, {
    filters: [
      { ...ANY, principalFilter: 'User:bob' },
      { ...ANY, resourceTypeFilter: ResourceType.GROUP },
      { ...ANY, patternTypeFilter: PatternType.UNKNOWN },
    ],
  });
  assert.deepEqual(
    deleted.filterResults.map((f) => [f.errorCode, f.matchingAcls.map((a) => `${a.resourceType}/${a.resourceName}`)]),
    [
      [ErrorCode.NONE, ['2/pay', '3/app']],
      [ErrorCode.NONE, ['3/app']],
      [ErrorCode.INVALID_REQUEST, []],
    ],
    'each filter lists what it matched, as Kafka does',
  );
  const left = await described(client);
  assert.equal(left.length, 3);
  client.close();

  await b.restart();
  client = await WireClient.connect(b.port);
  assert.deepEqual(await described(client), left);
  assert.equal(JSON.parse(await readFile(join(dataDir, 'acls.json'), 'utf8')).acls.length, 3);
  client.close();
});

test('CreateAcls refuses what Kafka refuses with INVALID_REQUEST and stores the rest', async () => {
  const b = await broker();
  const client = await WireClient.connect(b.port);
  const bad = [
    acl('t', 'alice', Op.READ),
    acl('', 'User:alice', Op.READ),
    acl('t', 'User:alice', Op.ANY),
    acl('t', 'User:alice', Op.READ, { permissionType: Permission.ANY }),
    acl('t', 'User:alice', Op.READ, { resourcePatternType: PatternType.MATCH }),
    acl('t', 'User:alice', Op.READ, { resourceType: ResourceType.ANY }),
    acl('my-cluster', 'User:alice', Op.ALTER, { resourceType: ResourceType.CLUSTER }),
  ];
  const r = await client.request(CreateAclsRequest, CreateAclsResponse, 3, { creations: [...bad, acl('t', 'User:alice', Op.READ)] });
  assert.deepEqual(
    r.results.map((x) => x.errorCode),
    [...bad.map(() => ErrorCode.INVALID_REQUEST), ErrorCode.NONE],
  );
  assert.equal(r.results[6]!.errorMessage, 'The only valid name for the CLUSTER resource is kafka-cluster');
  assert.deepEqual(await described(client), ['2/3/t User:alice * 3 3']);
  const unknown = await client.request(DescribeAclsRequest, DescribeAclsResponse, 3, { ...ANY, operation: Op.UNKNOWN });
  assert.equal(unknown.errorCode, ErrorCode.INVALID_REQUEST);
  client.close();
});

// kafkajs speaks Kafka's codes, which its CommonJS module does not export by name to ESM.
test('kafkajs createAcls, describeAcls and deleteAcls', async () => {
  const b = await broker();
  const admin = kafkajs(b.bootstrap).admin();
  await admin.connect();
  try {
    await admin.createAcls({
      acl: [
        {
          resourceType: ResourceType.TOPIC,
          resourceName: 'audit',
          resourcePatternType: PatternType.PREFIXED,
          principal: 'User:carol',
          host: '*',
          operation: Op.READ,
          permissionType: Permission.ALLOW,
        },
      ],
    });
    const filter = {
      resourceType: ResourceType.TOPIC,
      resourceName: 'audit-log',
      resourcePatternType: PatternType.MATCH,
      principal: 'User:carol',
      host: '*',
      operation: Op.ANY,
      permissionType: Permission.ANY,
    } as unknown as Parameters<typeof admin.describeAcls>[0];
    const { resources } = await admin.describeAcls(filter);
    assert.deepEqual(
      resources.map((r) => [r.resourceName, r.resourcePatternType, r.acls.map((a) => a.principal)]),
      [['audit', PatternType.PREFIXED, ['User:carol']]],
    );
    const { filterResponses } = await admin.deleteAcls({ filters: [filter] as unknown as Parameters<typeof admin.deleteAcls>[0]['filters'] });
    assert.equal(filterResponses[0]!.matchingAcls.length, 1);
    assert.deepEqual((await admin.describeAcls(filter)).resources, []);
  } finally {
    await admin.disconnect();
  }
});
