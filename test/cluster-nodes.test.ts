/**
 * Several nodes from one start (`nodes`): each node listens on its own port, Metadata and
 * DescribeCluster list them all, leaders spread as Kafka's replica placement spreads them, and a
 * node answers NOT_LEADER_OR_FOLLOWER or NOT_COORDINATOR for what it does not lead or coordinate.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { DescribeClusterRequest, DescribeClusterResponse } from '../src/protocol/messages/describe-cluster.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../src/protocol/messages/find-coordinator.js';
import { HeartbeatRequest, HeartbeatResponse } from '../src/protocol/messages/heartbeat.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../src/protocol/messages/offset-for-leader-epoch.js';
import { valuesBatch } from './helpers/batch.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { produceBatch } from './helpers/wire-produce.js';
import { startServe } from './helpers/serve-process.js';
import { until } from './helpers/until.js';

const NOT_LEADER_OR_FOLLOWER = 6;
const NOT_COORDINATOR = 16;
const NOT_ENOUGH_REPLICAS = 19;
const INVALID_REPLICATION_FACTOR = 38;
const FENCED_LEADER_EPOCH = 74;
const UNKNOWN_LEADER_EPOCH = 75;
const UNKNOWN_MEMBER_ID = 25;

let broker: Broker;
/** A connection to each node, by node id. */
const clients = new Map<number, WireClient>();

before(async () => {
  broker = await startBroker({ nodes: 3 });
  for (const { nodeId, bootstrap } of broker.cluster.nodes) clients.set(nodeId, await WireClient.connect(Number(bootstrap.split(':')[1])));
});

after(async () => {
  for (const client of clients.values()) client.close();
  await broker.close();
});

function node(nodeId: number): WireClient {
  return clients.get(nodeId)!;
}

async function create(name: string, numPartitions: number, replicationFactor: number, configs: Record<string, string> = {}): Promise<number> {
  const created = await node(1).request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name, numPartitions, replicationFactor, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  return created.topics[0]!.errorCode;
}

function metadata(nodeId: number, topic: string): Promise<MetadataResponse> {
  return node(nodeId).request(MetadataRequest, MetadataResponse, 12, {
    topics: [{ name: topic, topicId: '00000000-0000-0000-0000-000000000000' }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
}

test('every node listens on a port of its own, and Metadata and DescribeCluster on each list all three', async () => {
  const ports = broker.cluster.nodes.map((n) => Number(n.bootstrap.split(':')[1]));
  assert.equal(new Set(ports).size, 3);
  assert.equal(ports[0], broker.port);
  const listed = ports.map((port, i) => ({ nodeId: i + 1, host: '127.0.0.1', port, rack: null }));
  for (const nodeId of [1, 2, 3]) {
    const answer = await metadata(nodeId, 'nothing-here');
    assert.deepEqual(answer.brokers, listed);
    assert.equal(answer.controllerId, 1);
    const cluster = await node(nodeId).request(DescribeClusterRequest, DescribeClusterResponse, 1, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
    });
    assert.deepEqual(
      cluster.brokers.map((b) => [b.brokerId, b.port]),
      listed.map((b) => [b.nodeId, b.port]),
    );
  }
});

test('replication factors up to the nodes are taken, and replicas striped as Kafka places them', async () => {
  assert.equal(await create('striped', 6, 3), 0);
  assert.equal(await create('too-many', 1, 4), INVALID_REPLICATION_FACTOR);
  const [topic] = (await metadata(2, 'striped')).topics;
  // Leaders go round the nodes; each lap shifts the followers by one more (AdminUtils.assignReplicasToBrokersRackUnaware).
  assert.deepEqual(
    topic!.partitions.map((p) => [p.leaderId, p.leaderEpoch, p.replicaNodes, p.isrNodes]),
    [
      [1, 0, [1, 2, 3], [1, 2, 3]],
      [2, 0, [2, 3, 1], [2, 3, 1]],
      [3, 0, [3, 1, 2], [3, 1, 2]],
      [1, 0, [1, 3, 2], [1, 3, 2]],
      [2, 0, [2, 1, 3], [2, 1, 3]],
      [3, 0, [3, 2, 1], [3, 2, 1]],
    ],
  );
});

test('a fault rule naming a node acts only on requests arriving at that node', async () => {
  assert.equal(await create('by-node', 1, 3), 0);
  const LEADER_NOT_AVAILABLE = 5;
  const fault = broker.faults.add({ api: 'Metadata', topic: 'by-node', node: 2, error: 'LEADER_NOT_AVAILABLE' });
  try {
    for (const nodeId of [1, 2, 3]) {
      const { topics } = await metadata(nodeId, 'by-node');
      assert.equal(topics[0]!.errorCode, nodeId === 2 ? LEADER_NOT_AVAILABLE : 0, `Metadata at node ${nodeId}`);
    }
    assert.equal(fault.fired, 1);
  } finally {
    fault.remove();
  }
  assert.throws(() => broker.faults.add({ api: 'Metadata', node: 4, error: 'LEADER_NOT_AVAILABLE' }), /names node 4, but the broker serves nodes 1 to 3$/);
});

test('a partition is written and read at its leader only; the others answer NOT_LEADER_OR_FOLLOWER', async () => {
  assert.equal(await create('led', 3, 1), 0);
  for (const leader of [1, 2, 3]) {
    const partition = leader - 1;
    assert.equal(broker.cluster.leaderOf('led', partition), leader);
    for (const nodeId of [1, 2, 3]) {
      const { errorCode } = await produceBatch(node(nodeId), 'led', partition, valuesBatch(1));
      assert.equal(errorCode, nodeId === leader ? 0 : NOT_LEADER_OR_FOLLOWER, `produce to node ${nodeId}, leader ${leader}`);
      const fetched = await node(nodeId).request(FetchRequest, FetchResponse, 12, fetchOf('led', [partition]));
      assert.equal(fetched.responses[0]!.partitions[0]!.errorCode, nodeId === leader ? 0 : NOT_LEADER_OR_FOLLOWER);
    }
  }
});

test("a follower serves a consumer's Fetch from v11 (KIP-392); older Fetches and a replica's are the leader's", async () => {
  assert.equal(await create('followed', 1, 2), 0);
  assert.equal((await produceBatch(node(1), 'followed', 0, valuesBatch(2))).errorCode, 0);
  const fetchAt = async (nodeId: number, version: number, replicaId = -1) =>
    (await node(nodeId).request(FetchRequest, FetchResponse, version, { ...fetchOf('followed', [0]), replicaId })).responses[0]!.partitions[0]!;
  // Replicas 1 (the leader) and 2; node 3 holds none.
  for (const version of [11, 12]) {
    const read = await fetchAt(2, version);
    assert.deepEqual([read.errorCode, read.highWatermark, read.records!.readInt32BE(57)], [0, 2n, 2], `Fetch v${version} at the follower`);
    assert.equal((await fetchAt(3, version)).errorCode, NOT_LEADER_OR_FOLLOWER, `Fetch v${version} at a node with no replica`);
  }
  assert.equal((await fetchAt(2, 10)).errorCode, NOT_LEADER_OR_FOLLOWER, 'Fetch v10 at the follower');
  assert.equal((await fetchAt(2, 12, 3)).errorCode, NOT_LEADER_OR_FOLLOWER, "a replica's Fetch at the follower");
});

test('groups and transactional ids are coordinated where Kafka hashes them; other nodes answer NOT_COORDINATOR', async () => {
  // Java's "hello".hashCode() is 99162322: partition 22 of 50, led by the second node; "g" (103) gives 3, led by the first.
  for (const [key, coordinator] of [
    ['hello', 2],
    ['g', 1],
  ] as const) {
    for (const keyType of [0, 1]) {
      const found = await node(3).request(FindCoordinatorRequest, FindCoordinatorResponse, 3, { key, keyType, coordinatorKeys: [] });
      assert.equal(found.nodeId, coordinator);
      assert.equal(found.port, Number(broker.cluster.nodes[coordinator - 1]!.bootstrap.split(':')[1]));
    }
    for (const nodeId of [1, 2, 3]) {
      const beat = await node(nodeId).request(HeartbeatRequest, HeartbeatResponse, 4, { groupId: key, generationId: 1, memberId: 'm', groupInstanceId: null });
      assert.equal(beat.errorCode, nodeId === coordinator ? UNKNOWN_MEMBER_ID : NOT_COORDINATOR);
    }
  }
});

test('a moved leader serves at the next epoch; older epochs are fenced, newer unknown, and end where the next began', async () => {
  assert.equal(await create('moving', 1, 3), 0);
  assert.equal((await produceBatch(node(1), 'moving', 0, valuesBatch(2))).errorCode, 0);
  broker.cluster.moveLeader('moving', 0, 3);
  const [p] = (await metadata(1, 'moving')).topics[0]!.partitions;
  assert.deepEqual([p!.leaderId, p!.leaderEpoch], [3, 1]);
  assert.equal((await produceBatch(node(1), 'moving', 0, valuesBatch(1))).errorCode, NOT_LEADER_OR_FOLLOWER);
  assert.deepEqual(await produceBatch(node(3), 'moving', 0, valuesBatch(3)), { errorCode: 0, baseOffset: 2 });
  const fetchAt = async (currentLeaderEpoch: number) =>
    (await node(3).request(FetchRequest, FetchResponse, 12, fetchOf('moving', [0], { currentLeaderEpoch }))).responses[0]!.partitions[0]!;
  assert.equal((await fetchAt(0)).errorCode, FENCED_LEADER_EPOCH);
  assert.equal((await fetchAt(2)).errorCode, UNKNOWN_LEADER_EPOCH);
  const read = await fetchAt(1);
  assert.equal(read.errorCode, 0);
  // The leader stamps its epoch on what it stores: the first batch at 0, the second at 1.
  assert.equal(read.records!.readInt32BE(12), 0);
  assert.equal(read.records!.readInt32BE(read.records!.readInt32BE(8) + 12 + 12), 1);
  const ends = await node(3).request(OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, 4, {
    replicaId: -1,
    topics: [{ topic: 'moving', partitions: [0, 1, 2].map((leaderEpoch) => ({ partition: 0, currentLeaderEpoch: 1, leaderEpoch })) }],
  });
  assert.deepEqual(
    ends.topics[0]!.partitions.map((e) => [e.errorCode, e.leaderEpoch, e.endOffset]),
    [
      [0, 0, 2n],
      [0, 1, 5n],
      [0, -1, -1n],
    ],
  );
});

test('a stopped node closes its port and its leaderships move; acks=all needs min.insync.replicas in sync', async () => {
  assert.equal(await create('insync', 1, 3, { 'min.insync.replicas': '2' }), 0);
  assert.equal((await produceBatch(node(1), 'insync', 0, valuesBatch(1))).errorCode, 0);
  await broker.cluster.stopNode(1);
  assert.ok(await closed(node(1)));
  const [p] = (await metadata(2, 'insync')).topics[0]!.partitions;
  assert.deepEqual([p!.leaderId, p!.leaderEpoch, p!.isrNodes, p!.offlineReplicas], [2, 1, [2, 3], [1]]);
  assert.deepEqual(await produceBatch(node(2), 'insync', 0, valuesBatch(1)), { errorCode: 0, baseOffset: 1 });
  await broker.cluster.stopNode(3);
  assert.equal((await produceBatch(node(2), 'insync', 0, valuesBatch(1))).errorCode, NOT_ENOUGH_REPLICAS);
  await assert.rejects(broker.cluster.stopNode(2), /last live node/);
  await broker.cluster.startNode(1);
  await broker.cluster.startNode(3);
  clients.set(1, await WireClient.connect(broker.port));
  assert.deepEqual(
    (await metadata(1, 'insync')).brokers.map((b) => b.nodeId),
    [1, 2, 3],
  );
  assert.deepEqual(await produceBatch(node(2), 'insync', 0, valuesBatch(1)), { errorCode: 0, baseOffset: 2 });
});

/** Whether the broker closed the connection (a request on it gets no answer). */
async function closed(client: WireClient): Promise<boolean> {
  try {
    await metadata(1, 'nothing-here');
    return client.closed;
  } catch {
    return true;
  }
}

test('an isolated node drops out of Metadata and its leaderships move; healed, it is listed again', async () => {
  assert.equal(await create('cut-off', 3, 3), 0);
  const before = (await metadata(1, 'cut-off')).topics[0]!.partitions.map((p) => [p.leaderId, p.leaderEpoch]);
  broker.cluster.isolate(2);
  const during = await metadata(1, 'cut-off');
  assert.deepEqual(
    during.brokers.map((b) => b.nodeId),
    [1, 3],
  );
  const moved = during.topics[0]!.partitions.map((p) => [p.leaderId, p.leaderEpoch]);
  assert.deepEqual(
    moved,
    before.map(([leader, epoch]) => (leader === 2 ? [3, epoch! + 1] : [leader, epoch])),
  );
  broker.cluster.heal(2);
  assert.deepEqual(
    (await metadata(1, 'cut-off')).brokers.map((b) => b.nodeId),
    [1, 2, 3],
  );
});

test('brook serve --nodes 3 prints where each node listens, and each answers as one of three', async () => {
  const serve = await startServe(['--nodes', '3', '--port', '0']);
  try {
    await until(() => /brook node 3 listening on /.test(serve.output()), 'node 3 is announced');
    const ports = [...serve.output().matchAll(/^brook (?:node \d+ )?listening on [^\s]*:(\d+)$/gm)].map((m) => Number(m[1]));
    assert.equal(ports.length, 3);
    const client = await WireClient.connect(ports[2]!);
    try {
      const answer = await client.request(MetadataRequest, MetadataResponse, 12, {
        topics: [],
        allowAutoTopicCreation: false,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      });
      assert.deepEqual(
        answer.brokers.map((b) => [b.nodeId, b.port]),
        ports.map((port, i) => [i + 1, port]),
      );
    } finally {
      client.close();
    }
  } finally {
    await serve.stop();
  }
});
