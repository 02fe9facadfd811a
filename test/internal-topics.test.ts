import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { coordinatorPartition } from '../src/cluster/placement.js';
import { AclOperation } from '../src/acl/acl-binding.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../src/protocol/messages/add-partitions-to-txn.js';
import { CreateAclsRequest, CreateAclsResponse } from '../src/protocol/messages/create-acls.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../src/protocol/messages/create-partitions.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from '../src/protocol/messages/delete-records.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../src/protocol/messages/delete-topics.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../src/protocol/messages/describe-configs.js';
import { DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse } from '../src/protocol/messages/describe-topic-partitions.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../src/protocol/messages/find-coordinator.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { topicAcl } from './helpers/acls.js';
import { valuesBatch } from './helpers/batch.js';
import { usersFileFor } from './helpers/cli.js';
import { kafkajs } from './helpers/kafkajs.js';
import { latestOffset } from './helpers/topic-configs.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const GROUP = 0;
const TRANSACTION = 1;

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker({ port: 0, transactionStateLogNumPartitions: 7, transactionStateLogSegmentBytes: 1 << 20 });
  client = await WireClient.connect(broker.port);
});

after(async () => {
  client.close();
  await broker.close();
});

async function metadata(c: WireClient, name: string, allowAutoTopicCreation = false): Promise<MetadataResponse['topics'][number]> {
  const res = await c.request(MetadataRequest, MetadataResponse, 12, {
    topics: [{ topicId: ZERO_UUID, name }],
    allowAutoTopicCreation,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  return res.topics[0]!;
}

async function findCoordinators(c: WireClient, keyType: number, keys: string[]): Promise<FindCoordinatorResponse['coordinators']> {
  return (await c.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { key: '', keyType, coordinatorKeys: keys })).coordinators;
}

async function topicConfigs(name: string): Promise<Map<string, string | null>> {
  const described = await client.request(DescribeConfigsRequest, DescribeConfigsResponse, 4, {
    resources: [{ resourceType: 2, resourceName: name, configurationKeys: null }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  return new Map(described.results[0]!.configs.map((c) => [c.name, c.value]));
}

test('FindCoordinator for a group creates __consumer_offsets: 50 partitions, compacted, as Kafka creates it', async () => {
  assert.equal((await metadata(client, '__consumer_offsets')).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  const found = await findCoordinators(client, GROUP, ['a-group', 'another']);
  assert.deepEqual(
    found.map((f) => [f.errorCode, f.nodeId]),
    [
      [0, 1],
      [0, 1],
    ],
  );
  const topic = await metadata(client, '__consumer_offsets');
  assert.equal(topic.errorCode, 0);
  assert.equal(topic.partitions.length, 50);
  const configs = await topicConfigs('__consumer_offsets');
  assert.equal(configs.get('cleanup.policy'), 'compact');
  assert.equal(configs.get('compression.type'), 'producer');
  assert.equal(configs.get('segment.bytes'), String(100 * 1024 * 1024));
});

test('FindCoordinator for a transactional id creates __transaction_state with the settings given', async () => {
  const [found] = await findCoordinators(client, TRANSACTION, ['a-txn']);
  assert.equal(found!.errorCode, 0);
  const topic = await metadata(client, '__transaction_state');
  assert.equal(topic.partitions.length, 7);
  const configs = await topicConfigs('__transaction_state');
  assert.equal(configs.get('cleanup.policy'), 'compact');
  assert.equal(configs.get('compression.type'), 'uncompressed');
  assert.equal(configs.get('segment.bytes'), String(1 << 20));
  assert.equal(configs.get('min.insync.replicas'), '2');
  assert.equal(configs.get('unclean.leader.election.enable'), 'false');
});

test("a coordinator is the leader of its key's partition of the internal topic, as Metadata shows it", async () => {
  const cluster = await startBroker({ port: 0, nodes: 3, offsetsTopicNumPartitions: 5 });
  const c = await WireClient.connect(cluster.port);
  try {
    const keys = ['g', 'hello', 'group-7', 'x'];
    const found = await findCoordinators(c, GROUP, keys);
    const topic = await metadata(c, '__consumer_offsets');
    assert.equal(topic.partitions.length, 5);
    const leaders = keys.map((k) => topic.partitions.find((p) => p.partitionIndex === coordinatorPartition(k, 5))!.leaderId);
    assert.deepEqual(
      found.map((f) => f.nodeId),
      leaders,
    );
    assert.ok(new Set(leaders).size > 1, 'the keys are coordinated by more than one node');
    // A moved leadership moves the coordinator with it.
    const moved = leaders[0] === 3 ? 2 : 3;
    cluster.cluster.moveLeader('__consumer_offsets', coordinatorPartition('g', 5), moved);
    assert.equal((await findCoordinators(c, GROUP, ['g']))[0]!.nodeId, moved);
  } finally {
    c.close();
    await cluster.close();
  }
});

test('Metadata marks the internal topics is_internal in every version with the field, and no other topic', async () => {
  await createTopic(client, 'plain', 1);
  for (let version = 1; version <= 12; version++) {
    const res = await client.request(MetadataRequest, MetadataResponse, version, {
      topics: null,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const internal = new Map(res.topics.map((t) => [t.name, t.isInternal]));
    assert.deepEqual(
      [internal.get('__consumer_offsets'), internal.get('__transaction_state'), internal.get('plain')],
      [true, true, false],
      `Metadata v${version}`,
    );
  }
  const described = await client.request(DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, 0, {
    topics: [{ name: '__consumer_offsets' }, { name: 'plain' }],
    responsePartitionLimit: 2000,
    cursor: null,
  });
  assert.deepEqual(
    described.topics.map((t) => [t.name, t.errorCode, t.isInternal]),
    [
      ['__consumer_offsets', 0, true],
      ['plain', 0, false],
    ],
  );
});

test('a client produce to an internal topic is refused with INVALID_TOPIC_EXCEPTION and nothing is appended; Fetch and ListOffsets read it', async () => {
  for (const topic of ['__consumer_offsets', '__transaction_state']) {
    const { errorCode } = await produceBatch(client, topic, 0, valuesBatch(3));
    assert.equal(errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION, topic);
    assert.equal(await latestOffset(client, topic), 0, topic);
    const fetched = await client.request(FetchRequest, FetchResponse, 12, fetchOf(topic, [0]));
    assert.equal(fetched.responses[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
    assert.equal(fetched.responses[0]!.partitions[0]!.highWatermark, 0n);
  }
  const producer = kafkajs(`127.0.0.1:${broker.port}`).producer();
  await producer.connect();
  try {
    await assert.rejects(producer.send({ topic: '__consumer_offsets', messages: [{ key: 'k', value: 'v' }] }), /INVALID_TOPIC_EXCEPTION|invalid/i);
  } finally {
    await producer.disconnect();
  }
  assert.equal(await latestOffset(client, '__consumer_offsets'), 0);
});

test('DeleteTopics, CreatePartitions and DeleteRecords refuse an internal topic, which stays as it was', async () => {
  const deleted = await client.request(DeleteTopicsRequest, DeleteTopicsResponse, 6, {
    topics: [{ name: '__consumer_offsets', topicId: ZERO_UUID }],
    topicNames: [],
    timeoutMs: 1000,
  });
  assert.equal(deleted.responses[0]!.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  const grown = await client.request(CreatePartitionsRequest, CreatePartitionsResponse, 3, {
    topics: [{ name: '__transaction_state', count: 9, assignments: null }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  assert.equal(grown.results[0]!.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  const shrunk = await client.request(DeleteRecordsRequest, DeleteRecordsResponse, 2, {
    topics: [{ name: '__consumer_offsets', partitions: [{ partitionIndex: 0, offset: -1n }] }],
    timeoutMs: 1000,
  });
  assert.equal(shrunk.topics[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.equal((await metadata(client, '__consumer_offsets')).partitions.length, 50);
  assert.equal((await metadata(client, '__transaction_state')).partitions.length, 7);
});

test("a producer's AddPartitionsToTxn may not add an internal topic's partition: TOPIC_AUTHORIZATION_FAILED, the rest not attempted", async () => {
  const res = await client.request(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, 3, {
    transactions: [],
    v3AndBelowTransactionalId: 'txn',
    v3AndBelowProducerId: 1000n,
    v3AndBelowProducerEpoch: 0,
    v3AndBelowTopics: [
      { name: '__consumer_offsets', partitions: [0] },
      { name: 'plain', partitions: [0] },
    ],
  });
  assert.deepEqual(
    res.resultsByTopicV3AndBelow.map((t) => [t.name, t.resultsByPartition[0]!.partitionErrorCode]),
    [
      ['__consumer_offsets', ErrorCode.TOPIC_AUTHORIZATION_FAILED],
      ['plain', ErrorCode.OPERATION_NOT_ATTEMPTED],
    ],
  );
});

test('Metadata creates an internal topic only where it may auto-create, and then as its coordinator would', async () => {
  const other = await startBroker({ port: 0, offsetsTopicNumPartitions: 3 });
  const c = await WireClient.connect(other.port);
  try {
    const unknown = await metadata(c, '__consumer_offsets', false);
    assert.deepEqual([unknown.errorCode, unknown.isInternal], [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, true]);
    const created = await metadata(c, '__consumer_offsets', true);
    assert.deepEqual([created.errorCode, created.isInternal, created.partitions.length], [ErrorCode.NONE, true, 3]);
    const configs = await c.request(DescribeConfigsRequest, DescribeConfigsResponse, 4, {
      resources: [{ resourceType: 2, resourceName: '__consumer_offsets', configurationKeys: ['cleanup.policy'] }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    assert.equal(configs.results[0]!.configs[0]!.value, 'compact');
  } finally {
    c.close();
    await other.close();
  }
});

test('an internal topic a client created has the partitions it asked for, and its coordinators hash keys over them', async () => {
  const cluster = await startBroker({ port: 0, nodes: 3 });
  const c = await WireClient.connect(cluster.port);
  try {
    await createTopic(c, '__transaction_state', 4);
    const topic = await metadata(c, '__transaction_state');
    assert.deepEqual([topic.isInternal, topic.partitions.length], [true, 4]);
    const keys = ['t1', 't2', 't3', 'hello'];
    const found = await findCoordinators(c, TRANSACTION, keys);
    assert.deepEqual(
      found.map((f) => f.nodeId),
      keys.map((k) => topic.partitions.find((p) => p.partitionIndex === coordinatorPartition(k, 4))!.leaderId),
    );
  } finally {
    c.close();
    await cluster.close();
  }
});

test('with the authorizer on, a produce to an internal topic is refused for want of WRITE first, then as internal', async () => {
  const secured = await startBroker({
    port: 0,
    saslUsersFile: await usersFileFor(['admin', 'bob']),
    authorizer: true,
    superUsers: ['User:admin'],
  });
  const admin = await WireClient.connect(secured.port);
  const bob = await WireClient.connect(secured.port);
  try {
    await admin.authenticatePlain('admin', 'admin-secret');
    await bob.authenticatePlain('bob', 'bob-secret');
    assert.equal((await findCoordinators(admin, GROUP, ['g']))[0]!.errorCode, ErrorCode.NONE);
    assert.equal((await produceBatch(bob, '__consumer_offsets', 0, valuesBatch(1))).errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    const granted = await admin.request(CreateAclsRequest, CreateAclsResponse, 3, {
      creations: [topicAcl('__consumer_offsets', 'User:bob', AclOperation.WRITE)],
    });
    assert.equal(granted.results[0]!.errorCode, ErrorCode.NONE);
    assert.equal((await produceBatch(bob, '__consumer_offsets', 0, valuesBatch(1))).errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
    assert.equal((await produceBatch(admin, '__consumer_offsets', 0, valuesBatch(1))).errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
    assert.equal(await latestOffset(admin, '__consumer_offsets'), 0);
  } finally {
    admin.close();
    bob.close();
    await secured.close();
  }
});
