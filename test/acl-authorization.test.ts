/**
 * With the authorizer on, every API refuses a user without ACLs as Kafka does, with Kafka's
 * error, and changes nothing; refusals are logged and counted; authorized operations follow the
 * ACLs; a super user may do everything.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AclOperation as Op, Permission, ResourceType } from '../src/acl/acl-binding.js';
import type { MessageCodec, StructSchema } from '../src/protocol/messages/codec.js';
import { defaultStruct } from '../src/protocol/message-defaults.js';
import { CreateAclsRequest, CreateAclsResponse } from '../src/protocol/messages/create-acls.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../src/protocol/messages/create-partitions.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { DeleteAclsRequest, DeleteAclsResponse } from '../src/protocol/messages/delete-acls.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../src/protocol/messages/delete-groups.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from '../src/protocol/messages/delete-records.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../src/protocol/messages/delete-topics.js';
import { DescribeAclsRequest, DescribeAclsResponse } from '../src/protocol/messages/describe-acls.js';
import { DescribeClusterRequest, DescribeClusterResponse } from '../src/protocol/messages/describe-cluster.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../src/protocol/messages/describe-configs.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../src/protocol/messages/describe-log-dirs.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../src/protocol/messages/find-coordinator.js';
import { HeartbeatRequest, HeartbeatResponse } from '../src/protocol/messages/heartbeat.js';
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../src/protocol/messages/incremental-alter-configs.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../src/protocol/messages/init-producer-id.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../src/protocol/messages/add-partitions-to-txn.js';
import { JoinGroupRequest, JoinGroupResponse } from '../src/protocol/messages/join-group.js';
import { ListGroupsRequest, ListGroupsResponse } from '../src/protocol/messages/list-groups.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../src/protocol/messages/txn-offset-commit.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../src/protocol/messages/describe-transactions.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../src/protocol/messages/list-transactions.js';
import { AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse } from '../src/protocol/messages/alter-replica-log-dirs.js';
import { everyVersionServed } from '../src/broker/api-table.js';
import { hasAuthorizationRow, refusedWhole } from '../src/broker/authorization.js';
import { refusal } from '../src/faults/refusals.js';
import { Writer } from '../src/protocol/primitives/writer.js';
import { ANY_ACL, topicAcl } from './helpers/acls.js';
import { valuesBatch } from './helpers/batch.js';
import { usersFileFor } from './helpers/cli.js';
import { scrape } from './helpers/scrape.js';
import { WireClient } from './helpers/wire-client.js';
import { produceRequest } from './helpers/wire-produce.js';

type Obj = Record<string, unknown>;

let broker: Broker;
let admin: WireClient;
let bob: WireClient;
const logged: string[] = [];

/** `partial` over the schema's defaults, arrays of structs filled the same way. */
function filled(schema: StructSchema, partial: Obj): Obj {
  const out = defaultStruct(schema);
  for (const [name, value] of Object.entries(partial)) {
    const type = schema.fields.find((f) => f.name === name)?.type;
    if (type !== undefined && typeof type !== 'string' && Array.isArray(value)) out[name] = value.map((v) => filled(type, v as Obj));
    else out[name] = value;
  }
  return out;
}

function ask<Req, Res>(client: WireClient, req: MessageCodec<Req>, res: MessageCodec<Res>, version: number, partial: Obj): Promise<Res> {
  return client.request(req, res, version, filled(req.schema, partial) as Req);
}

async function user(name: string): Promise<WireClient> {
  const c = await WireClient.connect(broker.port);
  await c.authenticatePlain(name, `${name}-secret`);
  return c;
}

before(async () => {
  const usersFile = await usersFileFor(['admin', 'bob', 'carol']);
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  broker = await startBroker({
    port: 0,
    saslUsersFile: usersFile,
    authorizer: true,
    superUsers: ['User:admin'],
    metricsPort: 0,
    logger: pino({ level: 'info' }, sink),
  });
  admin = await user('admin');
  bob = await user('bob');
  const created = await ask(admin, CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name: 'secret', numPartitions: 2, replicationFactor: 1 }],
    timeoutMs: 1000,
  });
  assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
  const produced = await admin.request(ProduceRequest, ProduceResponse, 9, produceRequest('secret', 0, valuesBatch(3)));
  assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  const committed = await ask(admin, OffsetCommitRequest, OffsetCommitResponse, 8, {
    groupId: 'g',
    generationIdOrMemberEpoch: -1,
    topics: [{ name: 'secret', partitions: [{ partitionIndex: 0, committedOffset: 2n, committedLeaderEpoch: -1 }] }],
  });
  assert.equal(committed.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
});

after(async () => {
  admin.close();
  bob.close();
  await broker.close();
});

/** The high watermark of secret-0, as the super user sees it. */
async function end(): Promise<bigint> {
  const r = await ask(admin, ListOffsetsRequest, ListOffsetsResponse, 7, {
    replicaId: -1,
    topics: [{ name: 'secret', partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1 }] }],
  });
  return r.topics[0]!.partitions[0]!.offset;
}

/** InitProducerId for `transactionalId` (null: an idempotent producer's). */
function initProducer(c: WireClient, transactionalId: string | null): Promise<InitProducerIdResponse> {
  return ask(c, InitProducerIdRequest, InitProducerIdResponse, 4, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
}

/** AddPartitionsToTxn v3, a producer's: `partitions` of secret to `transactionalId`'s transaction. */
function addToTxn(
  c: WireClient,
  transactionalId: string,
  producerId: bigint,
  producerEpoch: number,
  partitions: number[],
): Promise<AddPartitionsToTxnResponse> {
  return ask(c, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, 3, {
    v3AndBelowTransactionalId: transactionalId,
    v3AndBelowProducerId: producerId,
    v3AndBelowProducerEpoch: producerEpoch,
    v3AndBelowTopics: [{ name: 'secret', partitions }],
  });
}

test('topic APIs refuse a user without ACLs with TOPIC_AUTHORIZATION_FAILED and change nothing', async () => {
  const before = await end();
  const produced = await bob.request(ProduceRequest, ProduceResponse, 9, produceRequest('secret', 0, valuesBatch(1)));
  assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  assert.equal(await end(), before);

  // acks=0 has no answer to carry the error: the connection is closed, as Kafka closes it.
  const quiet = await user('bob');
  quiet.sendRaw(quiet.frame(ProduceRequest, 9, produceRequest('secret', 0, valuesBatch(1), 0)));
  assert.equal(await quiet.nextFrame(), undefined);
  const transactional = await user('bob');
  transactional.sendRaw(transactional.frame(ProduceRequest, 9, { ...produceRequest('secret', 0, valuesBatch(1), 0), transactionalId: 'tx' }));
  assert.equal(await transactional.nextFrame(), undefined);
  assert.equal(await end(), before);

  const fetched = await ask(bob, FetchRequest, FetchResponse, 12, {
    replicaId: -1,
    maxWaitMs: 5000,
    minBytes: 1,
    maxBytes: 1 << 20,
    topics: [{ topic: 'secret', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
  });
  assert.equal(fetched.responses[0]!.partitions[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  assert.deepEqual(fetched.responses[0]!.partitions[0]!.records, Buffer.alloc(0));

  const listed = await ask(bob, ListOffsetsRequest, ListOffsetsResponse, 7, {
    replicaId: -1,
    topics: [{ name: 'secret', partitions: [{ partitionIndex: 1, timestamp: -1n, currentLeaderEpoch: -1 }] }],
  });
  assert.equal(listed.topics[0]!.partitions[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);

  const all = await ask(bob, MetadataRequest, MetadataResponse, 12, { topics: null, allowAutoTopicCreation: true });
  assert.deepEqual(all.topics, [], 'Metadata for all topics leaves out those the user may not describe');
  const named = await ask(bob, MetadataRequest, MetadataResponse, 12, { topics: [{ name: 'secret' }, { name: 'fresh' }], allowAutoTopicCreation: true });
  assert.deepEqual(
    named.topics.map((t) => [t.name, t.errorCode, t.partitions.length]),
    [
      ['secret', ErrorCode.TOPIC_AUTHORIZATION_FAILED, 0],
      ['fresh', ErrorCode.TOPIC_AUTHORIZATION_FAILED, 0],
    ],
  );

  const createdTopic = await ask(bob, CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name: 'mine', numPartitions: 1, replicationFactor: 1 }],
    timeoutMs: 1000,
  });
  assert.equal(createdTopic.topics[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const deleted = await ask(bob, DeleteTopicsRequest, DeleteTopicsResponse, 5, { topicNames: ['secret'], timeoutMs: 1000 });
  assert.equal(deleted.responses[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const grown = await ask(bob, CreatePartitionsRequest, CreatePartitionsResponse, 3, {
    topics: [{ name: 'secret', count: 4, assignments: null }],
    timeoutMs: 1000,
  });
  assert.equal(grown.results[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const trimmed = await ask(bob, DeleteRecordsRequest, DeleteRecordsResponse, 2, {
    topics: [{ name: 'secret', partitions: [{ partitionIndex: 0, offset: 2n }] }],
  });
  assert.equal(trimmed.topics[0]!.partitions[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const configs = await ask(bob, DescribeConfigsRequest, DescribeConfigsResponse, 4, {
    resources: [
      { resourceType: 2, resourceName: 'secret', configurationKeys: null },
      { resourceType: 4, resourceName: '1', configurationKeys: null },
    ],
  });
  assert.deepEqual(
    configs.results.map((r) => [r.errorCode, r.configs.length]),
    [
      [ErrorCode.TOPIC_AUTHORIZATION_FAILED, 0],
      [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 0],
    ],
  );
  const altered = await ask(bob, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 1, {
    resources: [{ resourceType: 2, resourceName: 'secret', configs: [{ name: 'retention.ms', configOperation: 0, value: '1' }] }],
  });
  assert.equal(altered.responses[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);

  // Nothing changed, as the super user sees it (beside __consumer_offsets, which earlier tests' groups made).
  const seen = await ask(admin, MetadataRequest, MetadataResponse, 12, { topics: null });
  assert.deepEqual(
    seen.topics.filter((t) => t.name !== '__consumer_offsets').map((t) => [t.name, t.partitions.length]),
    [['secret', 2]],
  );
  assert.equal(await end(), before);
  const kept = await ask(admin, DescribeConfigsRequest, DescribeConfigsResponse, 4, {
    resources: [{ resourceType: 2, resourceName: 'secret', configurationKeys: ['retention.ms'] }],
  });
  assert.notEqual(kept.results[0]!.configs[0]!.value, '1');
});

test('group APIs refuse a user without ACLs with GROUP_AUTHORIZATION_FAILED and change nothing', async () => {
  const joined = await ask(bob, JoinGroupRequest, JoinGroupResponse, 5, {
    groupId: 'g',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
  });
  assert.equal(joined.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const beat = await ask(bob, HeartbeatRequest, HeartbeatResponse, 4, { groupId: 'g', generationId: 1, memberId: 'm' });
  assert.equal(beat.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const committed = await ask(bob, OffsetCommitRequest, OffsetCommitResponse, 8, {
    groupId: 'g',
    generationIdOrMemberEpoch: -1,
    topics: [{ name: 'secret', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1 }] }],
  });
  assert.equal(committed.topics[0]!.partitions[0]!.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const fetched = await ask(bob, OffsetFetchRequest, OffsetFetchResponse, 7, { groupId: 'g', topics: null });
  assert.equal(fetched.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const found = await ask(bob, FindCoordinatorRequest, FindCoordinatorResponse, 4, { keyType: 0, coordinatorKeys: ['g'] });
  assert.equal(found.coordinators[0]!.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const described = await ask(bob, DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: ['g'] });
  assert.equal(described.groups[0]!.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const listed = await ask(bob, ListGroupsRequest, ListGroupsResponse, 4, {});
  assert.deepEqual(listed.groups, []);
  const deleted = await ask(bob, DeleteGroupsRequest, DeleteGroupsResponse, 2, { groupsNames: ['g'] });
  assert.equal(deleted.results[0]!.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);

  const kept = await ask(admin, OffsetFetchRequest, OffsetFetchResponse, 7, { groupId: 'g', topics: null });
  assert.equal(kept.topics[0]!.partitions[0]!.committedOffset, 2n, 'the committed offset is unchanged');
  assert.deepEqual(
    (await ask(admin, ListGroupsRequest, ListGroupsResponse, 4, {})).groups.map((g) => g.groupId),
    ['g'],
  );
});

test('cluster and producer APIs refuse a user without ACLs with Kafka errors', async () => {
  const idempotent = await initProducer(bob, null);
  assert.equal(idempotent.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  const transactional = await initProducer(bob, 'tx');
  assert.equal(transactional.errorCode, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const added = await addToTxn(bob, 'tx', 7n, 0, [0, 1]);
  assert.deepEqual(
    added.resultsByTopicV3AndBelow.map((t) => [t.name, t.resultsByPartition.map((p) => p.partitionErrorCode)]),
    [['secret', [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]]],
  );
  const acls = await ask(bob, DescribeAclsRequest, DescribeAclsResponse, 3, { resourceTypeFilter: 1, patternTypeFilter: 1, operation: 1, permissionType: 1 });
  assert.equal(acls.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  const created = await bob.request(CreateAclsRequest, CreateAclsResponse, 3, { creations: [topicAcl('secret', 'User:bob', Op.ALL)] });
  assert.equal(created.results[0]!.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  const removed = await bob.request(DeleteAclsRequest, DeleteAclsResponse, 3, { filters: [ANY_ACL] });
  assert.equal(removed.filterResults[0]!.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  const dirs = await ask(bob, DescribeLogDirsRequest, DescribeLogDirsResponse, 4, { topics: null });
  assert.equal(dirs.errorCode, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  assert.deepEqual((await admin.request(DescribeAclsRequest, DescribeAclsResponse, 3, ANY_ACL)).resources, [], 'no ACL was created');

  // With WRITE on its transactional id, an offset commit in a transaction still needs READ on the group.
  const granted = await admin.request(CreateAclsRequest, CreateAclsResponse, 3, {
    creations: [topicAcl('tx-b', 'User:bob', Op.WRITE, { resourceType: ResourceType.TRANSACTIONAL_ID })],
  });
  assert.equal(granted.results[0]!.errorCode, ErrorCode.NONE);
  const txnCommit = await ask(bob, TxnOffsetCommitRequest, TxnOffsetCommitResponse, 3, {
    transactionalId: 'tx-b',
    groupId: 'g',
    producerId: 7n,
    generationId: -1,
    topics: [{ name: 'secret', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1 }] }],
  });
  assert.equal(txnCommit.topics[0]!.partitions[0]!.errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  await admin.request(DeleteAclsRequest, DeleteAclsResponse, 3, { filters: [ANY_ACL] });
});

test('every API served has its row in the authorization table', () => {
  const missing = [...everyVersionServed()].filter(([apiKey]) => !hasAuthorizationRow(apiKey)).map(([, h]) => h.request.name);
  assert.deepEqual(missing, []);
});

test('transactions are described and listed only where the user may DESCRIBE the id, and their topics only where it may DESCRIBE them', async () => {
  const init = await initProducer(admin, 'tx-open');
  assert.equal(init.errorCode, ErrorCode.NONE);
  const added = await addToTxn(admin, 'tx-open', init.producerId, init.producerEpoch, [0]);
  assert.equal(added.resultsByTopicV3AndBelow[0]!.resultsByPartition[0]!.partitionErrorCode, ErrorCode.NONE);
  const describe = async (c: WireClient) =>
    (await ask(c, DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: ['tx-open'] })).transactionStates[0]!;
  const listed = async (c: WireClient) =>
    (await ask(c, ListTransactionsRequest, ListTransactionsResponse, 1, { durationFilter: -1n })).transactionStates.map((t) => t.transactionalId);

  const seenByAdmin = await describe(admin);
  assert.deepEqual(
    [seenByAdmin.errorCode, seenByAdmin.transactionState, seenByAdmin.topics],
    [ErrorCode.NONE, 'Ongoing', [{ topic: 'secret', partitions: [0] }]],
  );
  const refused = await describe(bob);
  assert.deepEqual(
    [refused.errorCode, refused.transactionState, refused.producerId, refused.topics],
    [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, '', -1n, []],
    'nothing of the transaction is told',
  );
  assert.ok((await listed(admin)).includes('tx-open'));
  assert.ok(!(await listed(bob)).includes('tx-open'), 'an id the user may not describe is not listed');

  const granted = await admin.request(CreateAclsRequest, CreateAclsResponse, 3, {
    creations: [topicAcl('tx-open', 'User:bob', Op.DESCRIBE, { resourceType: ResourceType.TRANSACTIONAL_ID })],
  });
  assert.equal(granted.results[0]!.errorCode, ErrorCode.NONE);
  const allowed = await describe(bob);
  assert.deepEqual([allowed.errorCode, allowed.transactionState, allowed.topics], [ErrorCode.NONE, 'Ongoing', []], 'but not the topic bob may not describe');
  assert.ok((await listed(bob)).includes('tx-open'));
  await admin.request(DeleteAclsRequest, DeleteAclsResponse, 3, { filters: [ANY_ACL] });
});

test('AlterReplicaLogDirs needs ALTER on the cluster', async () => {
  const moved = await ask(bob, AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse, 2, {
    dirs: [{ path: '/elsewhere', topics: [{ name: 'secret', partitions: [0, 1] }] }],
  });
  assert.deepEqual(
    moved.results.map((r) => [r.topicName, r.partitions.map((p) => p.errorCode)]),
    [['secret', [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED]]],
  );
});

test('every API the table may refuse whole can be refused in every version it is served', () => {
  for (const [apiKey, handler] of everyVersionServed()) {
    if (!refusedWhole(apiKey)) continue;
    for (let v = handler.minVersion; v <= handler.maxVersion; v++) {
      const request = defaultStruct(handler.request.schema);
      const answer = refusal(apiKey, request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      assert.doesNotThrow(() => handler.response.write(new Writer(64, 4096), v, answer), `${handler.request.name} v${v}`);
    }
  }
});

test('refusals are logged with principal, operation and resource, and counted', async () => {
  const samples = await scrape(broker.metricsPort!);
  assert.ok((samples.get('brook_authorization_denied_total{resource_type="TOPIC",operation="WRITE"}') ?? 0) >= 1, [...samples.keys()].join('\n'));
  const lines = logged.map((l) => JSON.parse(l) as Obj).filter((l) => String(l.msg).startsWith('authorization denied'));
  assert.ok(
    lines.some((l) => l.principal === 'User:bob' && l.operation === 'WRITE' && l.resource === 'TOPIC:secret' && l.host === '127.0.0.1'),
    JSON.stringify(lines.slice(0, 3)),
  );
  assert.ok(!lines.some((l) => l.principal === 'User:admin'), 'the super user is never refused');
});

test('an ACL lets the user in at once; authorized operations follow the ACLs', async () => {
  const carol = await user('carol');
  try {
    const grant = await admin.request(CreateAclsRequest, CreateAclsResponse, 3, { creations: [topicAcl('secret', 'User:carol', Op.READ)] });
    assert.equal(grant.results[0]!.errorCode, ErrorCode.NONE);
    const seen = await ask(carol, MetadataRequest, MetadataResponse, 12, { topics: null, includeTopicAuthorizedOperations: true });
    assert.deepEqual(
      seen.topics.map((t) => [t.name, t.topicAuthorizedOperations]),
      [['secret', (1 << Op.READ) | (1 << Op.DESCRIBE)]],
      'READ, and DESCRIBE it implies',
    );
    const denied = await ask(carol, DescribeClusterRequest, DescribeClusterResponse, 1, { includeClusterAuthorizedOperations: true, endpointType: 1 });
    assert.equal(denied.clusterAuthorizedOperations, 0);
    const cluster = await ask(admin, DescribeClusterRequest, DescribeClusterResponse, 1, { includeClusterAuthorizedOperations: true, endpointType: 1 });
    const all = [5, 9, 10, 11, 12, 7, 8].reduce((f, op) => f | (1 << op), 0);
    assert.equal(cluster.clusterAuthorizedOperations, all, 'a super user may do everything on the cluster');
    const produced = await carol.request(ProduceRequest, ProduceResponse, 9, produceRequest('secret', 1, valuesBatch(1)));
    assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'READ is not WRITE');
    const deny = await admin.request(CreateAclsRequest, CreateAclsResponse, 3, {
      creations: [topicAcl('*', 'User:*', Op.READ, { permissionType: Permission.DENY })],
    });
    assert.equal(deny.results[0]!.errorCode, ErrorCode.NONE);
    const after = await ask(carol, MetadataRequest, MetadataResponse, 12, { topics: null, includeTopicAuthorizedOperations: true });
    assert.deepEqual(
      after.topics.map((t) => [t.name, t.topicAuthorizedOperations]),
      [['secret', 1 << Op.DESCRIBE]],
      'a DENY of READ takes READ back at once (the cached decisions are dropped); the DESCRIBE the ALLOW implied stays, as in Kafka',
    );
  } finally {
    carol.close();
    await admin.request(DeleteAclsRequest, DeleteAclsResponse, 3, { filters: [ANY_ACL] });
  }
});
