/**
 * OffsetDelete: Kafka's group coordinator rules on the wire and through @platformatic/kafka's
 * admin, and deletions stored like commits, across a restart.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { JoinGroupRequest, JoinGroupResponse } from '../src/protocol/messages/join-group.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../src/protocol/messages/offset-delete.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import { SyncGroupRequest, SyncGroupResponse } from '../src/protocol/messages/sync-group.js';
import { Writer } from '../src/protocol/primitives/writer.js';
import { Admin } from './helpers/platformatic.js';
import { tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';

let dataDir: string;
let broker: Broker;
let client: WireClient;

before(async () => {
  dataDir = await tempDataDir();
  broker = await startBroker({ port: 0, dataDir });
  client = await WireClient.connect(broker.port);
  const created = await client.request(CreateTopicsRequest, CreateTopicsResponse, 5, {
    topics: ['od-a', 'od-b'].map((name) => ({ name, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] })),
    timeoutMs: 5000,
    validateOnly: false,
  });
  assert.deepEqual(
    created.topics.map((t) => t.errorCode),
    [0, 0],
  );
});

after(async () => {
  client.close();
  await broker.close();
  await rm(dataDir, { recursive: true, force: true });
});

type Named = Record<string, number[]>;
const topicsOf = (named: Named) => Object.entries(named).map(([name, partitions]) => ({ name, partitions }));

/** Commits offset 10 of each partition named, as an admin tool does: generation -1, no member. */
async function commit(groupId: string, named: Named): Promise<void> {
  const res = await client.request(OffsetCommitRequest, OffsetCommitResponse, 8, {
    groupId,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: topicsOf(named).map(({ name, partitions }) => ({
      name,
      partitions: partitions.map((partitionIndex) => ({
        partitionIndex,
        committedOffset: 10n,
        committedLeaderEpoch: -1,
        commitTimestamp: -1n,
        committedMetadata: null,
      })),
    })),
  });
  assert.ok(res.topics.every((t) => t.partitions.every((p) => p.errorCode === 0)));
}

/** The group's committed offsets, as `topic-partition` names (-1 left out). */
async function committed(groupId: string, c = client): Promise<string[]> {
  const res = await c.request(OffsetFetchRequest, OffsetFetchResponse, 7, { groupId, topics: null, groups: [], requireStable: false });
  return res.topics.flatMap((t) => t.partitions.filter((p) => p.committedOffset >= 0n).map((p) => `${t.name}-${p.partitionIndex}`)).sort();
}

async function offsetDelete(groupId: string, named: Named): Promise<OffsetDeleteResponse> {
  return client.request(OffsetDeleteRequest, OffsetDeleteResponse, 0, {
    groupId,
    topics: topicsOf(named).map(({ name, partitions }) => ({ name, partitions: partitions.map((partitionIndex) => ({ partitionIndex })) })),
  });
}

const errors = (res: OffsetDeleteResponse): Record<string, number> =>
  Object.fromEntries(res.topics.flatMap((t) => t.partitions.map((p) => [`${t.name}-${p.partitionIndex}`, p.errorCode])));

/** ConsumerProtocolSubscription v0: what a consumer's JoinGroup metadata says it subscribes to. */
function subscription(topics: string[]): Buffer {
  const w = new Writer();
  w.writeInt16(0);
  w.writeArrayLength(topics.length);
  for (const topic of topics) w.writeString(topic);
  w.writeNullableBytes(null);
  return w.finish();
}

/** Joins `groupId` alone with JoinGroup v2 (which needs no member id first) and syncs, leaving the group Stable with one member. */
async function joinAlone(groupId: string, protocolType: string, metadata: Buffer): Promise<void> {
  const joined = await client.request(JoinGroupRequest, JoinGroupResponse, 2, {
    groupId,
    sessionTimeoutMs: 30_000,
    rebalanceTimeoutMs: 30_000,
    memberId: '',
    groupInstanceId: null,
    protocolType,
    protocols: [{ name: 'range', metadata }],
    reason: null,
  });
  assert.equal(joined.errorCode, 0);
  const synced = await client.request(SyncGroupRequest, SyncGroupResponse, 0, {
    groupId,
    generationId: joined.generationId,
    memberId: joined.memberId,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }],
  });
  assert.equal(synced.errorCode, 0);
}

test("@platformatic/kafka deleteConsumerGroupOffsets removes an Empty group's offsets, kept so across a restart", async () => {
  await commit('od-empty', { 'od-a': [0, 1], 'od-b': [0] });
  const admin = new Admin({ clientId: 'od-admin', bootstrapBrokers: [broker.bootstrap] });
  try {
    const deleted = await admin.deleteConsumerGroupOffsets({ groupId: 'od-empty', topics: [{ name: 'od-a', partitionIndexes: [0] }] });
    assert.deepEqual(deleted, [{ name: 'od-a', partitionIndexes: [0] }]);
  } finally {
    await admin.close();
  }
  assert.deepEqual(await committed('od-empty'), ['od-a-1', 'od-b-0']);

  client.close();
  await broker.close();
  broker = await startBroker({ port: 0, dataDir });
  client = await WireClient.connect(broker.port);
  assert.deepEqual(await committed('od-empty'), ['od-a-1', 'od-b-0'], 'the deletion was stored');
});

test('an unknown group is GROUP_ID_NOT_FOUND and an empty group id INVALID_GROUP_ID, with no partitions', async () => {
  for (const [groupId, errorCode] of [
    ['od-nobody', ErrorCode.GROUP_ID_NOT_FOUND],
    ['', ErrorCode.INVALID_GROUP_ID],
  ] as const) {
    const res = await offsetDelete(groupId, { 'od-a': [0] });
    assert.deepEqual([res.errorCode, res.topics], [errorCode, []], groupId);
  }
});

test('partitions brook does not have are UNKNOWN_TOPIC_OR_PARTITION; deleting offsets never committed is no error', async () => {
  await commit('od-unknown', { 'od-a': [0] });
  const res = await offsetDelete('od-unknown', { 'od-a': [0, 1, 7], 'od-nosuch': [0] });
  assert.equal(res.errorCode, 0);
  assert.deepEqual(errors(res), {
    'od-a-0': 0,
    'od-a-1': 0,
    'od-a-7': ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    'od-nosuch-0': ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  });
});

test('an Empty group left without offsets goes, as in Kafka', async () => {
  await commit('od-last', { 'od-b': [1] });
  assert.equal((await offsetDelete('od-last', { 'od-b': [1] })).errorCode, 0);
  const described = await client.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: ['od-last'], includeAuthorizedOperations: false });
  assert.equal(described.groups[0]!.groupState, 'Dead');
  assert.equal((await offsetDelete('od-last', { 'od-b': [1] })).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
});

test('a consumer group with members keeps the offsets of topics they subscribe to: GROUP_SUBSCRIBED_TO_TOPIC', async () => {
  await commit('od-consumers', { 'od-a': [0, 1], 'od-b': [0, 1] });
  await joinAlone('od-consumers', 'consumer', subscription(['od-a']));
  const res = await offsetDelete('od-consumers', { 'od-a': [0], 'od-b': [0] });
  assert.equal(res.errorCode, 0);
  assert.deepEqual(errors(res), { 'od-a-0': ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, 'od-b-0': 0 });
  assert.deepEqual(await committed('od-consumers'), ['od-a-0', 'od-a-1', 'od-b-1']);
});

test('a consumer group whose subscriptions do not parse counts as subscribed to every topic, as in Kafka', async () => {
  await commit('od-garbled', { 'od-b': [0] });
  await joinAlone('od-garbled', 'consumer', Buffer.from('not a subscription'));
  assert.deepEqual(errors(await offsetDelete('od-garbled', { 'od-b': [0] })), { 'od-b-0': ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC });
  assert.deepEqual(await committed('od-garbled'), ['od-b-0']);
});

test('a group of another protocol type with members is NON_EMPTY_GROUP', async () => {
  await commit('od-connect', { 'od-b': [0] });
  await joinAlone('od-connect', 'connect', Buffer.from('worker'));
  const res = await offsetDelete('od-connect', { 'od-b': [0] });
  assert.deepEqual([res.errorCode, res.topics], [ErrorCode.NON_EMPTY_GROUP, []]);
  assert.deepEqual(await committed('od-connect'), ['od-b-0']);
});
