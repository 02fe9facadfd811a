/**
 * Where the leader is (KIP-951): a Produce (v10+) or Fetch (v16+) answer refusing a partition for
 * its leadership names the partition's current leader and epoch, and the leader's endpoint, so
 * that a client goes there without asking for metadata. Older versions' answers carry neither.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import type { MessageCodec } from '../src/protocol/messages/codec.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { FetchRequest, FetchResponse, type FetchResponsePartitionData } from '../src/protocol/messages/fetch.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ProduceRequest, ProduceResponse, type ProduceResponsePartitionProduceResponse } from '../src/protocol/messages/produce.js';
import { Writer } from '../src/protocol/primitives/writer.js';
import { valuesBatch } from './helpers/batch.js';
import { Connection, fetchV17, produceV11 } from './helpers/platformatic.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { produceRequest } from './helpers/wire-produce.js';
import { until } from './helpers/until.js';

const NOT_LEADER_OR_FOLLOWER = 6;
const FENCED_LEADER_EPOCH = 74;
const NO_LEADER = { leaderId: -1, leaderEpoch: -1 };

let broker: Broker;
const clients = new Map<number, WireClient>();
/** Each node's endpoint as Metadata lists it. */
let endpoints: MetadataResponse['brokers'];

before(async () => {
  // Kafka 4.3 serves Produce v13 and Fetch v18.
  broker = await startBroker({ nodes: 3, kafkaVersion: '4.3' });
  for (const { nodeId, bootstrap } of broker.cluster.nodes) clients.set(nodeId, await WireClient.connect(Number(bootstrap.split(':')[1])));
  endpoints = (await metadata(1, [])).brokers;
});

after(async () => {
  for (const client of clients.values()) client.close();
  await broker.close();
});

function node(nodeId: number): WireClient {
  return clients.get(nodeId)!;
}

function metadata(nodeId: number, topics: string[]): Promise<MetadataResponse> {
  return node(nodeId).request(MetadataRequest, MetadataResponse, 12, {
    topics: topics.map((name) => ({ name, topicId: '00000000-0000-0000-0000-000000000000' })),
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
}

/**
 * Creates `name` with one partition on `replicationFactor` nodes from node 1, moves its leader from
 * node 1 to node 3 (epoch 1), and gives its id. With one replica, nodes 1 and 2 hold none.
 */
async function movedTopic(name: string, replicationFactor = 3): Promise<string> {
  const created = await node(1).request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name, numPartitions: 1, replicationFactor, assignments: [], configs: [] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  assert.equal(created.topics[0]!.errorCode, 0);
  assert.equal(broker.cluster.leaderOf(name, 0), 1);
  broker.cluster.moveLeader(name, 0, 3);
  const [topic] = (await metadata(1, [name])).topics;
  assert.deepEqual([topic!.partitions[0]!.leaderId, topic!.partitions[0]!.leaderEpoch], [3, 1]);
  return topic!.topicId;
}

function endpointOf(nodeId: number): MetadataResponse['brokers'][number] {
  return endpoints.find((b) => b.nodeId === nodeId)!;
}

async function produceTo(nodeId: number, version: number, topic: string, topicId: string): Promise<ProduceResponse> {
  const request = produceRequest(topic, 0, valuesBatch(1));
  // v13 names the topic by id.
  if (version >= 13) request.topicData[0]!.topicId = topicId;
  return node(nodeId).request(ProduceRequest, ProduceResponse, version, request);
}

async function fetchFrom(nodeId: number, version: number, topic: string, topicId: string, currentLeaderEpoch = -1): Promise<FetchResponse> {
  const request = fetchOf(topic, [0], { currentLeaderEpoch });
  request.topics[0]!.topicId = topicId;
  return node(nodeId).request(FetchRequest, FetchResponse, version, request);
}

test('Produce v10 to v13 sent to a node that no longer leads names the new leader, its epoch and its listener', async () => {
  const topicId = await movedTopic('hinted-produce');
  for (const version of [10, 11, 12, 13]) {
    const answer = await produceTo(1, version, 'hinted-produce', topicId);
    const p: ProduceResponsePartitionProduceResponse = answer.responses[0]!.partitionResponses[0]!;
    assert.equal(p.errorCode, NOT_LEADER_OR_FOLLOWER, `Produce v${version}`);
    assert.deepEqual(p.currentLeader, { leaderId: 3, leaderEpoch: 1 }, `Produce v${version}`);
    assert.deepEqual(answer.nodeEndpoints, [endpointOf(3)], `Produce v${version}`);
  }
  // Where it was sent to the leader, nothing is hinted.
  const led = await produceTo(3, 12, 'hinted-produce', topicId);
  assert.equal(led.responses[0]!.partitionResponses[0]!.errorCode, 0);
  assert.deepEqual(led.responses[0]!.partitionResponses[0]!.currentLeader, NO_LEADER);
  assert.deepEqual(led.nodeEndpoints, []);
});

test('Fetch v16 to v18 sent to a node that holds no replica names the leader, its epoch and its listener', async () => {
  const topicId = await movedTopic('hinted-fetch', 1);
  for (const version of [16, 17, 18]) {
    const answer = await fetchFrom(2, version, 'hinted-fetch', topicId);
    const p: FetchResponsePartitionData = answer.responses[0]!.partitions[0]!;
    assert.equal(p.errorCode, NOT_LEADER_OR_FOLLOWER, `Fetch v${version}`);
    assert.deepEqual(p.currentLeader, { leaderId: 3, leaderEpoch: 1 }, `Fetch v${version}`);
    assert.deepEqual(answer.nodeEndpoints, [endpointOf(3)], `Fetch v${version}`);
  }
});

test('a Fetch fenced for an older epoch, at the leader or a follower, is told the current leader, as Kafka tells it', async () => {
  const topicId = await movedTopic('hinted-fenced');
  // Node 3 leads; node 1 follows, and serves a consumer's Fetch v11+ (KIP-392), checking its epoch.
  for (const at of [3, 1]) {
    const answer = await fetchFrom(at, 17, 'hinted-fenced', topicId, 0);
    const p = answer.responses[0]!.partitions[0]!;
    assert.equal(p.errorCode, FENCED_LEADER_EPOCH, `at node ${at}`);
    assert.deepEqual(p.currentLeader, { leaderId: 3, leaderEpoch: 1 }, `at node ${at}`);
    assert.deepEqual(answer.nodeEndpoints, [endpointOf(3)], `at node ${at}`);
  }
  // Before v16 the same refusal is bare.
  const older = (await fetchFrom(3, 15, 'hinted-fenced', topicId, 0)).responses[0]!.partitions[0]!;
  assert.equal(older.errorCode, FENCED_LEADER_EPOCH);
  assert.deepEqual(older.currentLeader, NO_LEADER);
});

test('a Fetch held on its way while leadership moves is fenced at the old leader, and told the new one', async () => {
  const topicId = await movedTopic('hinted-held');
  const request = fetchOf('hinted-held', [0], { currentLeaderEpoch: 1 });
  request.topics[0]!.topicId = topicId;
  // Held once node 3, the leader then, has let it through to the handler.
  const fault = broker.faults.add({ api: 'Fetch', topic: 'hinted-held', node: 3, hold: true, count: 1 });
  const answered = node(3).request(FetchRequest, FetchResponse, 17, request);
  await until(() => fault.fired === 1, 'the Fetch is held');
  broker.cluster.moveLeader('hinted-held', 0, 2);
  fault.release();
  const answer = await answered;
  const p = answer.responses[0]!.partitions[0]!;
  assert.equal(p.errorCode, FENCED_LEADER_EPOCH);
  assert.deepEqual(p.currentLeader, { leaderId: 2, leaderEpoch: 2 });
  assert.deepEqual(answer.nodeEndpoints, [endpointOf(2)]);
});

test("a fault's NOT_LEADER_OR_FOLLOWER at the leader names the leader as it stands: itself", async () => {
  const topicId = await movedTopic('hinted-fault');
  const fault = broker.faults.add({ api: 'Produce', topic: 'hinted-fault', node: 3, error: 'NOT_LEADER_OR_FOLLOWER', count: 1 });
  const answer = await produceTo(3, 12, 'hinted-fault', topicId);
  assert.equal(fault.fired, 1);
  const p = answer.responses[0]!.partitionResponses[0]!;
  assert.equal(p.errorCode, NOT_LEADER_OR_FOLLOWER);
  assert.deepEqual(p.currentLeader, { leaderId: 3, leaderEpoch: 1 });
  assert.deepEqual(answer.nodeEndpoints, [endpointOf(3)]);
});

/** The answer's bytes after its header, and the same answer as decoded and written again, which keeps no tag the codec does not know. */
async function rawAndRewritten<Req, Res>(
  client: WireClient,
  reqCodec: MessageCodec<Req>,
  resCodec: MessageCodec<Res>,
  version: number,
  request: Req,
): Promise<[Buffer, Buffer, Res]> {
  client.sendRaw(client.frame(reqCodec, version, request));
  const frame = (await client.nextFrame())!;
  const { body } = client.decode(frame, resCodec, reqCodec.apiKey, version);
  const w = new Writer();
  resCodec.write(w, version, body);
  // Flexible answers' header: the correlation id and an empty tag section.
  return [frame.subarray(5), w.finish(), body];
}

test('Produce v9 and Fetch v12 to v15 answers refusing for leadership keep their layout: no leader, no endpoints', async () => {
  const topicId = await movedTopic('unhinted', 1);
  const [raw, rewritten, produced] = await rawAndRewritten(node(1), ProduceRequest, ProduceResponse, 9, produceRequest('unhinted', 0, valuesBatch(1)));
  assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, NOT_LEADER_OR_FOLLOWER);
  assert.deepEqual(raw, rewritten);
  for (const version of [12, 13, 14, 15]) {
    const request = fetchOf('unhinted', [0]);
    request.topics[0]!.topicId = topicId;
    const [rawFetch, rewrittenFetch, fetched] = await rawAndRewritten(node(1), FetchRequest, FetchResponse, version, request);
    const p = fetched.responses[0]!.partitions[0]!;
    assert.equal(p.errorCode, NOT_LEADER_OR_FOLLOWER, `Fetch v${version}`);
    // Fetch v12+ has the field, tagged; Kafka fills it from v16.
    assert.deepEqual(p.currentLeader, NO_LEADER, `Fetch v${version}`);
    assert.deepEqual(rawFetch, rewrittenFetch, `Fetch v${version}`);
  }
});

test("@platformatic/kafka's Produce v11 and Fetch v17 read the leader and endpoint brook names", async () => {
  const topicId = await movedTopic('hinted-platformatic', 1);
  const connection = new Connection('leader-hints-test');
  const [host, port] = broker.cluster.nodes[0]!.bootstrap.split(':');
  await connection.connect(host!, Number(port));
  const leader = { nodeId: 3, host: endpointOf(3).host, port: endpointOf(3).port, rack: null };
  try {
    // The client throws a refusal, carrying the answer it read.
    const produced = await produceV11.api
      .async(connection, 1, 1000, [{ topic: 'hinted-platformatic', partition: 0, key: Buffer.from('k'), value: Buffer.from('v') }])
      .then(
        () => assert.fail('Produce at a node that does not lead is refused'),
        (err: { response: { responses: { partitionResponses: { errorCode: number; currentLeader: unknown }[] }[]; nodeEndpoints: unknown } }) => err.response,
      );
    assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, NOT_LEADER_OR_FOLLOWER);
    assert.deepEqual(produced.responses[0]!.partitionResponses[0]!.currentLeader, { leaderId: 3, leaderEpoch: 1 });
    assert.deepEqual(produced.nodeEndpoints, [leader]);
    const fetched = await fetchV17.api
      .async(
        connection,
        0,
        0,
        1 << 20,
        0,
        0,
        -1,
        [{ topicId, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, partitionMaxBytes: 1 << 20 }] }],
        [],
        '',
      )
      .then(
        () => assert.fail('Fetch at a node that does not lead is refused'),
        (err: { response: { responses: { partitions: { errorCode: number; currentLeader: unknown }[] }[]; nodeEndpoints: unknown } }) => err.response,
      );
    assert.equal(fetched.responses[0]!.partitions[0]!.errorCode, NOT_LEADER_OR_FOLLOWER);
    assert.deepEqual(fetched.responses[0]!.partitions[0]!.currentLeader, { leaderId: 3, leaderEpoch: 1 });
    assert.deepEqual(fetched.nodeEndpoints, [leader]);
  } finally {
    await connection.close();
  }
});
