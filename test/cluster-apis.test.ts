/**
 * The cluster APIs, answered as a KRaft cluster whose only node, 1, is broker and controller:
 * elections, reassignments, the quorum, broker registration, voters, feature levels, and
 * DescribeTopicPartitions' pages.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AddRaftVoterRequest, AddRaftVoterResponse } from '../src/protocol/messages/add-raft-voter.js';
import { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from '../src/protocol/messages/alter-partition-reassignments.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { DescribeQuorumRequest, DescribeQuorumResponse } from '../src/protocol/messages/describe-quorum.js';
import { DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse } from '../src/protocol/messages/describe-topic-partitions.js';
import { ElectLeadersRequest, ElectLeadersResponse } from '../src/protocol/messages/elect-leaders.js';
import { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse } from '../src/protocol/messages/list-partition-reassignments.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { RemoveRaftVoterRequest, RemoveRaftVoterResponse } from '../src/protocol/messages/remove-raft-voter.js';
import { UnregisterBrokerRequest, UnregisterBrokerResponse } from '../src/protocol/messages/unregister-broker.js';
import { UpdateFeaturesRequest, UpdateFeaturesResponse } from '../src/protocol/messages/update-features.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

/** Kafka's topic operations with no authorizer (READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS). */
const TOPIC_OPERATIONS = 0b1101_1111_1000;
const NOT_ASKED = -2147483648;

let broker: Broker;
let client: WireClient;
let clusterId: string;

before(async () => {
  broker = await startBroker({ port: 0 });
  client = await WireClient.connect(broker.port);
  await createTopic(client, 'pages-a', 3);
  await createTopic(client, 'pages-b', 2);
  await createTopic(client, 'pages-c', 1);
  ({ clusterId } = (await client.request(MetadataRequest, MetadataResponse, 12, {
    topics: [],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  })) as { clusterId: string });
});

after(async () => {
  client.close();
  await broker.close();
});

const elect = (electionType: number, topicPartitions: ElectLeadersRequest['topicPartitions'], version = 2) =>
  client.request(ElectLeadersRequest, ElectLeadersResponse, version, { electionType, topicPartitions, timeoutMs: 1000 });
const results = (res: ElectLeadersResponse) =>
  res.replicaElectionResults.map((t) => [t.topic, t.partitionResult.map((p) => [p.partitionId, p.errorCode, p.errorMessage])]);

test('ElectLeaders: each partition already has its preferred and only replica as leader, so no election is needed', async () => {
  for (const electionType of [0, 1]) {
    const res = await elect(electionType, [
      { topic: 'pages-b', partitions: [0, 1, 4] },
      { topic: 'nope', partitions: [0] },
    ]);
    assert.equal(res.errorCode, 0);
    assert.deepEqual(results(res), [
      [
        'pages-b',
        [
          [0, ErrorCode.ELECTION_NOT_NEEDED, null],
          [1, ErrorCode.ELECTION_NOT_NEEDED, null],
          [4, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'No such partition as pages-b-4'],
        ],
      ],
      ['nope', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'No such topic as nope']]],
    ]);
  }
  assert.deepEqual(
    results(await elect(0, [{ topic: 'pages-c', partitions: [0] }], 0)),
    [['pages-c', [[0, ErrorCode.ELECTION_NOT_NEEDED, null]]]],
    'v0, always preferred',
  );
});

test('ElectLeaders for every partition leaves out those that need none; an election type Kafka lacks is INVALID_REQUEST', async () => {
  const all = await elect(0, null);
  assert.deepEqual(results(all), [
    ['pages-a', []],
    ['pages-b', []],
    ['pages-c', []],
  ]);
  const bad = await elect(5, [{ topic: 'pages-a', partitions: [0] }]);
  assert.deepEqual([bad.errorCode, results(bad)], [ErrorCode.INVALID_REQUEST, [['pages-a', [[0, ErrorCode.INVALID_REQUEST, 'Unknown election type 5']]]]]);
});

test("reassignments: none in progress; to [1] changes nothing, to other brokers or none is refused in the controller's words", async () => {
  const listed = await client.request(ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, 0, { timeoutMs: 1000, topics: null });
  assert.deepEqual([listed.errorCode, listed.topics], [0, []]);
  const named = await client.request(ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, 0, {
    timeoutMs: 1000,
    topics: [{ name: 'pages-a', partitionIndexes: [0] }],
  });
  assert.deepEqual(named.topics, []);
  const res = await client.request(AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, 0, {
    timeoutMs: 1000,
    topics: [
      { name: 'pages-a', partitions: [[1], [2, 1], [1, 1], [], null].map((replicas, partitionIndex) => ({ partitionIndex, replicas })) },
      { name: 'nope', partitions: [{ partitionIndex: 0, replicas: [1] }] },
    ],
  });
  assert.deepEqual([res.errorCode, res.errorMessage], [0, null]);
  assert.deepEqual(
    res.responses.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.errorMessage])]),
    [
      [
        'pages-a',
        [
          [0, 0, null],
          [1, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes broker 2, but no such broker is registered.'],
          [2, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes the broker 1 more than once.'],
          [3, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'Unable to find partition pages-a:3.'],
          [4, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'Unable to find partition pages-a:4.'],
        ],
      ],
      ['nope', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'Unable to find a topic named nope.']]],
    ],
  );
  const emptied = await client.request(AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, 0, {
    timeoutMs: 1000,
    topics: [
      {
        name: 'pages-c',
        partitions: [
          { partitionIndex: 0, replicas: [] },
          { partitionIndex: 0, replicas: null },
        ],
      },
    ],
  });
  assert.deepEqual(
    emptied.responses[0]!.partitions.map((p) => [p.errorCode, p.errorMessage]),
    [
      [ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes an empty replica list.'],
      [ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, 'No partition reassignment is in progress.'],
    ],
  );
});

test('DescribeQuorum: node 1 alone, leading the metadata partition; other partitions are UNKNOWN_TOPIC_OR_PARTITION', async () => {
  const res = await client.request(DescribeQuorumRequest, DescribeQuorumResponse, 2, {
    topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
  });
  const p = res.topics[0]!.partitions[0]!;
  assert.deepEqual([res.errorCode, res.topics[0]!.topicName, p.errorCode, p.leaderId, p.observers], [0, '__cluster_metadata', 0, 1, []]);
  assert.deepEqual(
    p.currentVoters.map((v) => [v.replicaId, v.replicaDirectoryId, v.lastFetchTimestamp > 0n]),
    [[1, ZERO_UUID, true]],
  );
  assert.deepEqual(res.nodes, [{ nodeId: 1, listeners: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: broker.port }] }]);
  const other = await client.request(DescribeQuorumRequest, DescribeQuorumResponse, 1, {
    topics: [{ topicName: 'pages-a', partitions: [{ partitionIndex: 0 }] }],
  });
  assert.deepEqual(
    other.topics.map((t) => [t.topicName, t.partitions.map((q) => q.errorCode)]),
    [['pages-a', [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]],
  );
});

test('UnregisterBroker: node 1 registers again at once; another id is not registered', async () => {
  const self = await client.request(UnregisterBrokerRequest, UnregisterBrokerResponse, 0, { brokerId: 1 });
  assert.equal(self.errorCode, 0);
  const other = await client.request(UnregisterBrokerRequest, UnregisterBrokerResponse, 0, { brokerId: 7 });
  assert.deepEqual([other.errorCode, other.errorMessage], [ErrorCode.BROKER_ID_NOT_REGISTERED, 'Broker ID 7 is not currently registered']);
});

test('Add/RemoveRaftVoter: a static quorum (kraft.version 0) changes no voters; a foreign cluster id or no voter is refused first', async () => {
  const voter = { voterId: 2, voterDirectoryId: '5b8ba5a4-2c1a-4a59-9f0c-5a9a1a1e6d21' };
  const add = (request: Partial<AddRaftVoterRequest>) =>
    client.request(AddRaftVoterRequest, AddRaftVoterResponse, 0, {
      clusterId,
      timeoutMs: 1000,
      ...voter,
      listeners: [{ name: 'PLAINTEXT', host: 'h', port: 9 }],
      ...request,
    });
  const answer = (r: { errorCode: number; errorMessage: string | null }) => [r.errorCode, r.errorMessage];
  assert.deepEqual(answer(await add({})), [ErrorCode.UNSUPPORTED_VERSION, "Cluster doesn't support adding voter because the kraft.version feature is 0"]);
  assert.deepEqual(answer(await add({ clusterId: 'other' })), [
    ErrorCode.INCONSISTENT_CLUSTER_ID,
    `The given id "other" doesn't match the cluster id "${clusterId}"`,
  ]);
  assert.deepEqual(answer(await add({ voterDirectoryId: ZERO_UUID })), [ErrorCode.INVALID_REQUEST, "Add voter request didn't include a valid voter"]);
  assert.deepEqual(answer(await add({ listeners: [] })), [
    ErrorCode.INVALID_REQUEST,
    "Add voter request didn't include the endpoint for the default listener PLAINTEXT",
  ]);
  const removed = await client.request(RemoveRaftVoterRequest, RemoveRaftVoterResponse, 0, { clusterId: null, ...voter });
  assert.deepEqual(answer(removed), [ErrorCode.UNSUPPORTED_VERSION, "Cluster doesn't support removing voter because the kraft.version feature is 0"]);
});

test('ApiVersions v3+ report metadata.version 25 (4.0-IV3), transaction.version 2 and group.version 1 as supported and finalized', async () => {
  for (const version of [3, 4]) {
    const res = await client.request(ApiVersionsRequest, ApiVersionsResponse, version, { clientSoftwareName: 'features', clientSoftwareVersion: '1' });
    assert.deepEqual(res.supportedFeatures, [
      { name: 'metadata.version', minVersion: 25, maxVersion: 25 },
      { name: 'transaction.version', minVersion: 0, maxVersion: 2 },
      { name: 'group.version', minVersion: 0, maxVersion: 1 },
    ]);
    assert.deepEqual(
      [res.finalizedFeaturesEpoch, res.finalizedFeatures],
      [
        0n,
        [
          { name: 'metadata.version', minVersionLevel: 25, maxVersionLevel: 25 },
          { name: 'transaction.version', minVersionLevel: 2, maxVersionLevel: 2 },
          { name: 'group.version', minVersionLevel: 1, maxVersionLevel: 1 },
        ],
      ],
    );
  }
});

test("UpdateFeatures takes only the levels brook runs at, refusing others in the controller's words, each on its own as Kafka 3.9's", async (t) => {
  // Kafka 3.9's controller answers each feature on its own; from 4.0 one refused refuses the whole request.
  const older = await startBroker({ kafkaVersion: '3.9' });
  t.after(() => older.close());
  const c = await WireClient.connect(older.port);
  t.after(() => c.close());
  const update = async (version: number, featureUpdates: Partial<UpdateFeaturesRequest['featureUpdates'][number]>[]) => {
    const res = await c.request(UpdateFeaturesRequest, UpdateFeaturesResponse, version, {
      timeoutMs: 1000,
      validateOnly: false,
      featureUpdates: featureUpdates.map((u) => ({ feature: 'metadata.version', maxVersionLevel: 21, allowDowngrade: false, upgradeType: 1, ...u })),
    });
    assert.deepEqual([res.errorCode, res.errorMessage], [0, null]);
    return res.results.map((r) => [r.feature, r.errorCode, r.errorMessage]);
  };
  const invalid = (level: number, feature: string, why: string) => [
    feature,
    ErrorCode.INVALID_UPDATE_VERSION,
    `Invalid update version ${level} for feature ${feature}. ${why}`,
  ];
  assert.deepEqual(
    await update(1, [
      {},
      { maxVersionLevel: 20, upgradeType: 2 },
      { feature: 'kraft.version', maxVersionLevel: 1 },
      { feature: 'group.version', maxVersionLevel: 0 },
    ]),
    [
      ['metadata.version', 0, null],
      invalid(20, 'metadata.version', 'Local controller 1 only supports versions 21'),
      invalid(1, 'kraft.version', 'Local controller 1 does not support this feature.'),
      ['group.version', 0, null],
    ],
  );
  assert.deepEqual(await update(1, [{ upgradeType: 9 }]), [invalid(21, 'metadata.version', 'The controller does not support the given upgrade type.')]);
  assert.deepEqual(await update(0, [{ maxVersionLevel: 22, allowDowngrade: true }]), [
    invalid(22, 'metadata.version', 'Local controller 1 only supports versions 21'),
  ]);
});

type Page = { topics: [string, number, number[]][]; next: [string, number] | null };

async function page(request: Partial<DescribeTopicPartitionsRequest>): Promise<Page> {
  const res = await client.request(DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, 0, {
    topics: [],
    responsePartitionLimit: 2000,
    cursor: null,
    ...request,
  });
  return {
    topics: res.topics.map((t) => [t.name!, t.errorCode, t.partitions.map((p) => p.partitionIndex)]),
    next: res.nextCursor === null ? null : [res.nextCursor.topicName, res.nextCursor.partitionIndex],
  };
}

test('DescribeTopicPartitions describes every topic by name, each partition led by node 1', async () => {
  const res = await client.request(DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, 0, {
    topics: [{ name: 'pages-b' }],
    responsePartitionLimit: 10,
    cursor: null,
  });
  const [topic] = res.topics;
  assert.deepEqual([topic!.errorCode, topic!.name, topic!.isInternal, topic!.topicAuthorizedOperations], [0, 'pages-b', false, TOPIC_OPERATIONS]);
  assert.deepEqual(topic!.partitions[1], {
    errorCode: 0,
    partitionIndex: 1,
    leaderId: 1,
    leaderEpoch: 0,
    replicaNodes: [1],
    isrNodes: [1],
    eligibleLeaderReplicas: [],
    lastKnownElr: [],
    offlineReplicas: [],
  });
  assert.deepEqual(await page({}), {
    topics: [
      ['pages-a', 0, [0, 1, 2]],
      ['pages-b', 0, [0, 1]],
      ['pages-c', 0, [0]],
    ],
    next: null,
  });
});

test('DescribeTopicPartitions pages at the response partition limit, with a cursor where the next page begins', async () => {
  const first = await page({ responsePartitionLimit: 2 });
  assert.deepEqual(first, { topics: [['pages-a', 0, [0, 1]]], next: ['pages-a', 2] });
  const second = await page({ responsePartitionLimit: 3, cursor: { topicName: 'pages-a', partitionIndex: 2 } });
  assert.deepEqual(second, {
    topics: [
      ['pages-a', 0, [2]],
      ['pages-b', 0, [0, 1]],
    ],
    next: ['pages-c', 0],
  });
  assert.deepEqual(
    await page({ responsePartitionLimit: 0, cursor: { topicName: 'pages-c', partitionIndex: 0 } }),
    { topics: [['pages-c', 0, [0]]], next: null },
    'a limit below 1 is 1',
  );
});

test('DescribeTopicPartitions answers topics named that do not exist, and refuses a cursor outside the topics named', async () => {
  assert.deepEqual(await page({ topics: [{ name: 'pages-c' }, { name: 'zz-none' }, { name: 'bad name' }] }), {
    topics: [
      ['bad name', ErrorCode.INVALID_TOPIC_EXCEPTION, []],
      ['pages-c', 0, [0]],
      ['zz-none', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []],
    ],
    next: null,
  });
  const refused = await client.request(DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, 0, {
    topics: [{ name: 'pages-b' }],
    responsePartitionLimit: 10,
    cursor: { topicName: 'pages-a', partitionIndex: 0 },
  });
  assert.deepEqual(
    refused.topics.map((t) => [t.name, t.errorCode, t.topicAuthorizedOperations]),
    [['pages-b', ErrorCode.INVALID_REQUEST, NOT_ASKED]],
  );
});
