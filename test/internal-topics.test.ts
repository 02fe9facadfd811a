import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { coordinatorPartition } from '../src/cluster/placement.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../src/protocol/messages/describe-configs.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../src/protocol/messages/find-coordinator.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { WireClient } from './helpers/wire-client.js';

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
