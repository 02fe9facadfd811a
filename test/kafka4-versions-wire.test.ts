/**
 * Versions Kafka 4 added, over the wire against the real broker: Metadata v13's error of the whole
 * answer (KIP-1102), Produce v13 and Fetch v13+ naming topics by id (KIP-516), DescribeGroups v6's
 * GROUP_ID_NOT_FOUND (KIP-1043), ListOffsets v8-10's tiered offsets, InitProducerId v5,
 * DescribeCluster v2's fenced brokers and UpdateFeatures v2, each served where the profile's release serves it and
 * closing the connection where it does not.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { KAFKA_VERSIONS, type KafkaVersion } from '../src/protocol/kafka-releases.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ApiKey } from '../src/protocol/messages/apis.js';
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../src/protocol/messages/consumer-group-heartbeat.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from '../src/protocol/messages/delete-records.js';
import { DescribeClusterRequest, DescribeClusterResponse } from '../src/protocol/messages/describe-cluster.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../src/protocol/messages/init-producer-id.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { UpdateFeaturesRequest, UpdateFeaturesResponse } from '../src/protocol/messages/update-features.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { Reader } from '../src/protocol/primitives/reader.js';
import { Writer } from '../src/protocol/primitives/writer.js';
import { refusal } from '../src/faults/refusals.js';
import { valuesBatch } from './helpers/batch.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic } from './helpers/wire-produce.js';

let broker: Broker;
let client: WireClient;

before(async () => {
  // The newest release, which serves every version here (Produce v13 and Fetch v13+ from 4.1).
  broker = await startBroker({ kafkaVersion: KAFKA_VERSIONS[KAFKA_VERSIONS.length - 1]! });
  client = await WireClient.connect(broker.port);
  await createTopic(client, 'by-id', 2);
});

after(async () => {
  client.close();
  await broker.close();
});

const metadataOf = (topics: string[]): MetadataRequest => ({
  topics: topics.map((name) => ({ name, topicId: '00000000-0000-0000-0000-000000000000' })),
  allowAutoTopicCreation: false,
  includeClusterAuthorizedOperations: false,
  includeTopicAuthorizedOperations: false,
});

async function topicId(name: string): Promise<string> {
  const answer = await client.request(MetadataRequest, MetadataResponse, 12, metadataOf([name]));
  return answer.topics[0]!.topicId;
}

/** A Produce v13 of one batch to each (topic id, partition). */
function produceById(targets: readonly [id: string, partition: number][], prefix: string): ProduceRequest {
  return {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: targets.map(([id, index]) => ({ name: '', topicId: id, partitionData: [{ index, records: valuesBatch(2, {}, prefix) }] })),
  };
}

/** A Fetch of one partition of each topic id, from offset 0. */
function fetchById(ids: readonly string[], partition: number): FetchRequest {
  const one = fetchOf('', [partition]);
  return { ...one, topics: ids.map((id) => ({ ...one.topics[0]!, topic: '', topicId: id })) };
}

/** Whether a profile's broker closes the connection on this request (as for a version it does not serve). */
async function closesOn(kafkaVersion: KafkaVersion, frame: (c: WireClient) => Buffer): Promise<boolean> {
  const b = await startBroker({ kafkaVersion });
  try {
    const c = await WireClient.connect(b.port);
    c.sendRaw(frame(c));
    const answer = await c.nextFrame();
    c.close();
    return answer === undefined;
  } finally {
    await b.close();
  }
}

test('Metadata v13 answers the whole answer without error beside each topic and its id', async () => {
  const answer = await client.request(MetadataRequest, MetadataResponse, 13, metadataOf(['by-id', 'no-such-topic']));
  assert.equal(answer.errorCode, ErrorCode.NONE);
  assert.deepEqual(
    answer.topics.map((t) => [t.name, t.errorCode, t.partitions.length]),
    [
      ['by-id', ErrorCode.NONE, 2],
      ['no-such-topic', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 0],
    ],
  );
  assert.equal(answer.topics[0]!.topicId, await topicId('by-id'));
});

test('Metadata v13 is served where the release serves it: 4.0 on, not 3.9', async () => {
  const frame = (c: WireClient): Buffer => c.frame(MetadataRequest, 13, metadataOf([]));
  assert.equal(await closesOn('3.9', frame), true);
  assert.equal(await closesOn('4.0', frame), false);
});

test("a Metadata request refused whole carries the error for each topic, and from v13 as the answer's own, as Kafka's getErrorResponse", () => {
  const id = randomUUID();
  const request = { ...metadataOf(['a']), topics: [...metadataOf(['a']).topics!, { name: null, topicId: id }] };
  for (const version of [12, 13]) {
    const w = new Writer();
    MetadataResponse.write(w, version, refusal(ApiKey.Metadata, request, ErrorCode.UNKNOWN_SERVER_ERROR) as MetadataResponse);
    const read = MetadataResponse.read(new Reader(w.finish()), version);
    assert.deepEqual(
      read.topics.map((t) => [t.name, t.topicId, t.errorCode]),
      [
        ['a', '00000000-0000-0000-0000-000000000000', ErrorCode.UNKNOWN_SERVER_ERROR],
        ['', id, ErrorCode.UNKNOWN_SERVER_ERROR],
      ],
      `v${version}`,
    );
    assert.equal(read.errorCode, version >= 13 ? ErrorCode.UNKNOWN_SERVER_ERROR : 0, `v${version}`);
  }
});

test('Produce v13 writes to a topic named by id and answers its id; an unknown id is answered UNKNOWN_TOPIC_ID', async () => {
  const id = await topicId('by-id');
  const unknown = randomUUID();
  const answer = await client.request(
    ProduceRequest,
    ProduceResponse,
    13,
    produceById(
      [
        [id, 1],
        [unknown, 0],
      ],
      'p',
    ),
  );
  assert.deepEqual(
    answer.responses.map((t) => [t.topicId, t.partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset])]),
    [
      [id, [[1, ErrorCode.NONE, 0n]]],
      [unknown, [[0, ErrorCode.UNKNOWN_TOPIC_ID, -1n]]],
    ],
  );
  const read = await client.request(FetchRequest, FetchResponse, 12, fetchOf('by-id', [1]));
  assert.equal(read.responses[0]!.partitions[0]!.highWatermark, 2n, 'the batch is in the partition named by its topic id');
});

test('a Produce v13 with acks=0 naming an unknown topic id closes the connection, as any error it cannot answer', async () => {
  const c = await WireClient.connect(broker.port);
  c.sendRaw(c.frame(ProduceRequest, 13, { ...produceById([[randomUUID(), 0]], 'z'), acks: 0 }));
  assert.equal(await c.nextFrame(), undefined);
  assert.ok(c.closed);
});

test('Fetch v13 to v18 read a topic named by id and answer its id; an unknown id is answered UNKNOWN_TOPIC_ID', async () => {
  const id = await topicId('by-id');
  await client.request(ProduceRequest, ProduceResponse, 13, produceById([[id, 0]], 'f'));
  const unknown = randomUUID();
  for (let version = 13; version <= 18; version++) {
    const answer = await client.request(FetchRequest, FetchResponse, version, fetchById([id, unknown], 0));
    assert.deepEqual(
      answer.responses.map((t) => [t.topicId, t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.highWatermark])]),
      [
        [id, [[0, ErrorCode.NONE, 2n]]],
        [unknown, [[0, ErrorCode.UNKNOWN_TOPIC_ID, -1n]]],
      ],
      `v${version}`,
    );
    assert.ok((answer.responses[0]!.partitions[0]!.records?.length ?? 0) > 0, `v${version} carries the records`);
  }
});

test('Produce v13 and Fetch v18 are served where the release serves them: 4.1 on', async () => {
  const produce = (c: WireClient): Buffer => c.frame(ProduceRequest, 13, produceById([[randomUUID(), 0]], 'x'));
  const fetch = (c: WireClient): Buffer => c.frame(FetchRequest, 18, fetchById([randomUUID()], 0));
  assert.equal(await closesOn('4.0', produce), true);
  assert.equal(await closesOn('4.0', fetch), true);
  assert.equal(await closesOn('4.1', produce), false);
  assert.equal(await closesOn('4.1', fetch), false);
  assert.equal(await closesOn('3.9', (c) => c.frame(FetchRequest, 13, fetchById([randomUUID()], 0))), false, '3.9 serves Fetch up to v17');
});

test('DescribeGroups v6 answers a group that is not a classic one GROUP_ID_NOT_FOUND, saying why; v5 describes it Dead', async () => {
  const joined = await client.request(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, 0, {
    groupId: 'new-protocol',
    memberId: '',
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: ['by-id'],
    serverAssignor: null,
    topicPartitions: [],
  });
  assert.equal(joined.errorCode, ErrorCode.NONE);
  const committed = await client.request(OffsetCommitRequest, OffsetCommitResponse, 8, {
    groupId: 'offsets-only',
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [
      { name: 'by-id', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null }] },
    ],
  });
  assert.equal(committed.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  const groups = ['new-protocol', 'no-such-group', 'offsets-only'];
  const v6 = await client.request(DescribeGroupsRequest, DescribeGroupsResponse, 6, { groups, includeAuthorizedOperations: false });
  assert.deepEqual(
    v6.groups.map((g) => [g.groupId, g.errorCode, g.groupState, g.errorMessage]),
    [
      ['new-protocol', ErrorCode.GROUP_ID_NOT_FOUND, 'Dead', 'Group new-protocol is not a classic group.'],
      ['no-such-group', ErrorCode.GROUP_ID_NOT_FOUND, 'Dead', 'Group no-such-group not found.'],
      ['offsets-only', ErrorCode.NONE, 'Empty', null],
    ],
  );
  const v5 = await client.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups, includeAuthorizedOperations: false });
  assert.deepEqual(
    v5.groups.map((g) => [g.groupId, g.errorCode, g.groupState]),
    [
      ['new-protocol', ErrorCode.NONE, 'Dead'],
      ['no-such-group', ErrorCode.NONE, 'Dead'],
      ['offsets-only', ErrorCode.NONE, 'Empty'],
    ],
  );
});

test('DescribeGroups v6 is served where the release serves it: 4.0 on, not 3.9', async () => {
  const frame = (c: WireClient): Buffer => c.frame(DescribeGroupsRequest, 6, { groups: ['g'], includeAuthorizedOperations: false });
  assert.equal(await closesOn('3.9', frame), true);
  assert.equal(await closesOn('4.0', frame), false);
});

const listOffsetsOf = (topic: string, timestamp: bigint): ListOffsetsRequest => ({
  replicaId: -1,
  isolationLevel: 0,
  timeoutMs: 1000,
  topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }] }],
});

test('ListOffsets v8 tells the earliest local offset, the log start; v9 the latest tiered, none; v10 takes a timeout', async () => {
  await createTopic(client, 'tiers', 1);
  await client.request(ProduceRequest, ProduceResponse, 12, {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: 'tiers', partitionData: [{ index: 0, records: valuesBatch(5) }] }],
  });
  const deleted = await client.request(DeleteRecordsRequest, DeleteRecordsResponse, 2, {
    topics: [{ name: 'tiers', partitions: [{ partitionIndex: 0, offset: 3n }] }],
    timeoutMs: 5000,
  });
  assert.equal(deleted.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  const ask = async (version: number, timestamp: bigint): Promise<[number, bigint, bigint]> => {
    const p = (await client.request(ListOffsetsRequest, ListOffsetsResponse, version, listOffsetsOf('tiers', timestamp))).topics[0]!.partitions[0]!;
    return [p.errorCode, p.offset, p.timestamp];
  };
  for (const version of [8, 9, 10]) {
    assert.deepEqual(await ask(version, -4n), [ErrorCode.NONE, 3n, -1n], `v${version} earliest local`);
    assert.deepEqual(await ask(version, -2n), [ErrorCode.NONE, 3n, -1n], `v${version} earliest`);
    assert.deepEqual(await ask(version, -1n), [ErrorCode.NONE, 5n, -1n], `v${version} latest`);
  }
  for (const version of [9, 10]) assert.deepEqual(await ask(version, -5n), [ErrorCode.NONE, -1n, -1n], `v${version} latest tiered`);
});

test('ListOffsets v10 is served where the release serves it: 4.0 on, not 3.9', async () => {
  const frame = (c: WireClient): Buffer => c.frame(ListOffsetsRequest, 10, listOffsetsOf('tiers', -1n));
  assert.equal(await closesOn('3.9', frame), true);
  assert.equal(await closesOn('4.0', frame), false);
});

test('InitProducerId v5 hands out a producer id, under 3.9 and 4.0 alike', async () => {
  const request: InitProducerIdRequest = { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 };
  const answer = await client.request(InitProducerIdRequest, InitProducerIdResponse, 5, request);
  assert.deepEqual([answer.errorCode, answer.producerId >= 0n, answer.producerEpoch], [ErrorCode.NONE, true, 0]);
  const frame = (c: WireClient): Buffer => c.frame(InitProducerIdRequest, 5, request);
  assert.equal(await closesOn('3.9', frame), false);
  assert.equal(await closesOn('4.0', frame), false);
});

test('DescribeCluster v2 lists a stopped node as fenced only when asked to include fenced brokers', async (t) => {
  const cluster = await startBroker({ nodes: 3 });
  t.after(() => cluster.close());
  await cluster.cluster.stopNode(3);
  const c = await WireClient.connect(cluster.port);
  t.after(() => c.close());
  const describe = async (includeFencedBrokers: boolean): Promise<[number, boolean][]> => {
    const answer = await c.request(DescribeClusterRequest, DescribeClusterResponse, 2, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
      includeFencedBrokers,
    });
    return answer.brokers.map((b) => [b.brokerId, b.isFenced ?? false]);
  };
  assert.deepEqual(await describe(false), [
    [1, false],
    [2, false],
  ]);
  assert.deepEqual(await describe(true), [
    [1, false],
    [2, false],
    [3, true],
  ]);
  const frame = (w: WireClient): Buffer => w.frame(DescribeClusterRequest, 2, { includeClusterAuthorizedOperations: false, endpointType: 1 });
  assert.equal(await closesOn('3.9', frame), true);
  assert.equal(await closesOn('4.0', frame), false);
});

const featureUpdates = (updates: [feature: string, level: number][]): UpdateFeaturesRequest => ({
  timeoutMs: 1000,
  validateOnly: false,
  featureUpdates: updates.map(([feature, maxVersionLevel]) => ({ feature, maxVersionLevel, allowDowngrade: false, upgradeType: 1 })),
});

test("UpdateFeatures v2 answers no feature, and refuses the whole request for one feature refused, as Kafka 4's controller", async () => {
  const update = async (c: WireClient, version: number, updates: [string, number][]): Promise<unknown[]> => {
    const res = await c.request(UpdateFeaturesRequest, UpdateFeaturesResponse, version, featureUpdates(updates));
    return [res.errorCode, res.errorMessage, res.results.map((r) => [r.feature, r.errorCode])];
  };
  const refused = [
    ErrorCode.INVALID_UPDATE_VERSION,
    'The update failed for all features since the following feature had an error: Invalid update version 1 for feature kraft.version. Local controller 1 does not support this feature.',
    [],
  ];
  assert.deepEqual(await update(client, 2, [['group.version', 1]]), [ErrorCode.NONE, null, []]);
  assert.deepEqual(
    await update(client, 2, [
      ['group.version', 1],
      ['kraft.version', 1],
    ]),
    refused,
  );
  // Kafka 4.0's controller answers v1 so too; v1 taken still names each feature.
  const b = await startBroker({ kafkaVersion: '4.0' });
  try {
    const c = await WireClient.connect(b.port);
    assert.deepEqual(
      await update(c, 1, [
        ['group.version', 1],
        ['kraft.version', 1],
      ]),
      refused,
    );
    assert.deepEqual(await update(c, 1, [['group.version', 1]]), [ErrorCode.NONE, null, [['group.version', ErrorCode.NONE]]]);
    c.close();
  } finally {
    await b.close();
  }
  assert.equal(await closesOn('3.9', (c) => c.frame(UpdateFeaturesRequest, 2, featureUpdates([]))), true);
});
