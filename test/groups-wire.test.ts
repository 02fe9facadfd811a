import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../src/protocol/messages/delete-groups.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../src/protocol/messages/delete-topics.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { HeartbeatRequest, HeartbeatResponse } from '../src/protocol/messages/heartbeat.js';
import { JoinGroupRequest, JoinGroupResponse } from '../src/protocol/messages/join-group.js';
import { LeaveGroupRequest, LeaveGroupResponse } from '../src/protocol/messages/leave-group.js';
import { ListGroupsRequest, ListGroupsResponse } from '../src/protocol/messages/list-groups.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import { SyncGroupRequest, SyncGroupResponse } from '../src/protocol/messages/sync-group.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { startBroker, type Broker, type BrokerOptions } from '../src/broker/start-broker.js';
import type { OffsetChange } from '../src/groups/offset-state.js';
import { valuesBatch } from './helpers/batch.js';
import { writeOldOffsetLog } from './helpers/old-offset-files.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { produceBatch } from './helpers/wire-produce.js';

let broker: Broker;
let client: WireClient;
// Kafka 3.9's, for the oldest versions of the group APIs, which Kafka 4.0 removed.
let older: Broker;
let olderClient: WireClient;
before(async () => {
  broker = await startBroker({ port: 0, partitions: 2 });
  client = await WireClient.connect(broker.port);
  await createTopic('t');
  older = await startBroker({ port: 0, partitions: 2, kafkaVersion: '3.9' });
  olderClient = await WireClient.connect(older.port);
  await createTopic('t', olderClient);
});
after(async () => {
  client.close();
  olderClient.close();
  await broker.close();
  await older.close();
});

async function createTopic(name: string, c = client): Promise<void> {
  const created = await c.request(CreateTopicsRequest, CreateTopicsResponse, 5, {
    topics: [{ name, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  assert.equal(created.topics[0]?.errorCode, ErrorCode.NONE);
}

const protocol = { name: 'range', metadata: Buffer.from('sub') };

function join(version: number, groupId: string, memberId: string, metadata = protocol.metadata, c = client) {
  return c.request(JoinGroupRequest, JoinGroupResponse, version, {
    groupId,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ ...protocol, metadata }],
    reason: null,
  });
}

/** SyncGroup v0 from a group's only member, its leader, assigning itself `assignment`. */
function syncAlone(groupId: string, { memberId, generationId }: { memberId: string; generationId: number }, assignment: string, c = client) {
  return c.request(SyncGroupRequest, SyncGroupResponse, 0, {
    groupId,
    generationId,
    memberId,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [{ memberId, assignment: Buffer.from(assignment) }],
  });
}

function commit(
  version: number,
  groupId: string,
  generationId: number,
  memberId: string,
  partitions: { partitionIndex: number; committedOffset: bigint; committedMetadata?: string }[],
  topic = 't',
  c = client,
) {
  return c.request(OffsetCommitRequest, OffsetCommitResponse, version, {
    groupId,
    generationIdOrMemberEpoch: generationId,
    memberId,
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [{ name: topic, partitions: partitions.map((p) => ({ committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null, ...p })) }],
  });
}

test('ApiVersions under Kafka 3.9 advertises the group APIs from version 0', async () => {
  const { apiKeys } = await olderClient.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'wire', clientSoftwareVersion: '1' });
  const ranges = Object.fromEntries(
    apiKeys.filter((k) => [8, 9, 11, 12, 13, 14, 15, 16, 42].includes(k.apiKey)).map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]),
  );
  assert.deepEqual(ranges, { 8: [0, 9], 9: [0, 9], 11: [0, 9], 12: [0, 4], 13: [0, 5], 14: [0, 5], 15: [0, 5], 16: [0, 5], 42: [0, 2] });
});

test('the oldest versions, under Kafka 3.9: JoinGroup v0 joins at once, then SyncGroup, Heartbeat, OffsetCommit v1, OffsetFetch v1, LeaveGroup v0', async () => {
  const joined = await join(0, 'old', '', protocol.metadata, olderClient);
  assert.equal(joined.errorCode, ErrorCode.NONE);
  assert.equal(joined.leader, joined.memberId);
  assert.deepEqual(
    joined.members.map((m) => m.metadata.toString()),
    ['sub'],
  );
  const { memberId, generationId } = joined;
  const synced = await syncAlone('old', joined, 'both', olderClient);
  assert.deepEqual([synced.errorCode, synced.assignment.toString()], [ErrorCode.NONE, 'both']);
  const beat = await olderClient.request(HeartbeatRequest, HeartbeatResponse, 0, { groupId: 'old', generationId, memberId, groupInstanceId: null });
  assert.equal(beat.errorCode, ErrorCode.NONE);
  const committed = await commit(1, 'old', generationId, memberId, [{ partitionIndex: 1, committedOffset: 5n, committedMetadata: 'note' }], 't', olderClient);
  assert.equal(committed.topics[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
  const fetched = await olderClient.request(OffsetFetchRequest, OffsetFetchResponse, 1, {
    groupId: 'old',
    topics: [{ name: 't', partitionIndexes: [0, 1] }],
    groups: [],
    requireStable: false,
  });
  assert.deepEqual(
    fetched.topics[0]?.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.metadata, p.errorCode]),
    [
      [0, -1n, '', 0],
      [1, 5n, 'note', 0],
    ],
  );
  const left = await olderClient.request(LeaveGroupRequest, LeaveGroupResponse, 0, { groupId: 'old', memberId, members: [] });
  assert.equal(left.errorCode, ErrorCode.NONE);
  const again = await olderClient.request(LeaveGroupRequest, LeaveGroupResponse, 0, { groupId: 'old', memberId, members: [] });
  assert.equal(again.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('the newest versions: JoinGroup v9 asks for a member id, SyncGroup v5 names the protocol, LeaveGroup v5 lists members', async () => {
  const first = await join(9, 'new', '');
  assert.equal(first.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  assert.match(first.memberId, /^wire-test-/);
  const joined = await join(9, 'new', first.memberId);
  assert.deepEqual([joined.errorCode, joined.protocolType, joined.protocolName, joined.skipAssignment], [ErrorCode.NONE, 'consumer', 'range', false]);
  const synced = await client.request(SyncGroupRequest, SyncGroupResponse, 5, {
    groupId: 'new',
    generationId: joined.generationId,
    memberId: joined.memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [],
  });
  assert.deepEqual([synced.errorCode, synced.protocolType, synced.protocolName, synced.assignment.length], [ErrorCode.NONE, 'consumer', 'range', 0]);

  const described = await client.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: ['new'], includeAuthorizedOperations: false });
  const group = described.groups[0]!;
  assert.deepEqual([group.groupState, group.protocolType, group.protocolData], ['Stable', 'consumer', 'range']);
  assert.deepEqual(
    group.members.map((m) => [m.memberId, m.clientId, m.clientHost, m.memberMetadata.toString()]),
    [[joined.memberId, 'wire-test', '/127.0.0.1', 'sub']],
  );

  const stable = await client.request(ListGroupsRequest, ListGroupsResponse, 5, { statesFilter: ['stable'], typesFilter: ['classic'] });
  assert.deepEqual(
    stable.groups.map((g) => [g.groupId, g.protocolType, g.groupState, g.groupType]),
    [['new', 'consumer', 'Stable', 'classic']],
  );
  const consumerType = await client.request(ListGroupsRequest, ListGroupsResponse, 5, { statesFilter: [], typesFilter: ['consumer'] });
  assert.deepEqual(consumerType.groups, []);

  const deleteBusy = await client.request(DeleteGroupsRequest, DeleteGroupsResponse, 2, { groupsNames: ['new'] });
  assert.equal(deleteBusy.results[0]?.errorCode, ErrorCode.NON_EMPTY_GROUP);
  const left = await client.request(LeaveGroupRequest, LeaveGroupResponse, 5, {
    groupId: 'new',
    memberId: '',
    members: [
      { memberId: joined.memberId, groupInstanceId: null, reason: 'test over' },
      { memberId: 'ghost', groupInstanceId: null, reason: null },
    ],
  });
  assert.deepEqual([left.errorCode, ...left.members.map((m) => m.errorCode)], [ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID]);

  // Like Kafka, the Empty group is kept with its protocol type, and its generation goes on.
  const emptied = await client.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: ['new'], includeAuthorizedOperations: false });
  assert.deepEqual([emptied.groups[0]!.groupState, emptied.groups[0]!.protocolType], ['Empty', 'consumer']);
  const again = await join(9, 'new', (await join(9, 'new', '')).memberId);
  assert.equal(again.generationId, joined.generationId + 2);
});

test('OffsetCommit: generation -1 commits to a group without members; unknown partitions and long metadata are refused one by one', async () => {
  const committed = await commit(8, 'simple', -1, '', [
    { partitionIndex: 0, committedOffset: 3n },
    { partitionIndex: 7, committedOffset: 1n },
    { partitionIndex: 1, committedOffset: 4n, committedMetadata: 'x'.repeat(4097) },
  ]);
  assert.deepEqual(
    committed.topics[0]?.partitions.map((p) => p.errorCode),
    [ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.OFFSET_METADATA_TOO_LARGE],
  );
  const v2 = await commit(2, 'simple', -1, '', [{ partitionIndex: 1, committedOffset: 9n }]);
  assert.equal(v2.topics[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
  const unknownGroup = await commit(9, 'nobody-home', 4, 'member', [{ partitionIndex: 0, committedOffset: 1n }]);
  assert.equal(unknownGroup.topics[0]?.partitions[0]?.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);

  const all = await client.request(OffsetFetchRequest, OffsetFetchResponse, 7, { groupId: 'simple', topics: null, groups: [], requireStable: true });
  assert.equal(all.errorCode, ErrorCode.NONE);
  assert.deepEqual(
    all.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.committedOffset])]),
    [
      [
        't',
        [
          [0, 3n],
          [1, 9n],
        ],
      ],
    ],
  );

  const batched = await client.request(OffsetFetchRequest, OffsetFetchResponse, 8, {
    groupId: '',
    topics: [],
    groups: [
      { groupId: 'simple', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [1] }] },
      { groupId: 'nobody-home', memberId: null, memberEpoch: -1, topics: null },
    ],
    requireStable: false,
  });
  assert.deepEqual(
    batched.groups.map((g) => [g.groupId, g.errorCode, g.topics.map((t) => t.partitions.map((p) => p.committedOffset))]),
    [
      ['simple', 0, [[9n]]],
      ['nobody-home', 0, []],
    ],
  );

  const deleted = await client.request(DeleteGroupsRequest, DeleteGroupsResponse, 0, { groupsNames: ['simple', 'simple'] });
  assert.deepEqual(
    deleted.results.map((r) => r.errorCode),
    [ErrorCode.NONE, ErrorCode.GROUP_ID_NOT_FOUND],
  );
});

test("DeleteTopics takes every group's offsets of the topic with it: not fetched, not listed, not there for a topic made again under its name", async () => {
  await createTopic('doomed');
  assert.equal(
    (await commit(8, 'only-doomed', -1, '', [{ partitionIndex: 0, committedOffset: 42n }], 'doomed')).topics[0]?.partitions[0]?.errorCode,
    ErrorCode.NONE,
  );
  assert.equal((await commit(8, 'both', -1, '', [{ partitionIndex: 1, committedOffset: 5n }], 'doomed')).topics[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
  assert.equal((await commit(8, 'both', -1, '', [{ partitionIndex: 0, committedOffset: 6n }])).topics[0]?.partitions[0]?.errorCode, ErrorCode.NONE);
  const deleted = await client.request(DeleteTopicsRequest, DeleteTopicsResponse, 4, { topics: [], topicNames: ['doomed'], timeoutMs: 1000 });
  assert.equal(deleted.responses[0]?.errorCode, ErrorCode.NONE);

  const all = await client.request(OffsetFetchRequest, OffsetFetchResponse, 7, { groupId: 'both', topics: null, groups: [], requireStable: false });
  assert.deepEqual(
    all.topics.map((t) => [t.name, t.partitions.map((p) => p.committedOffset)]),
    [['t', [6n]]],
  );
  const listed = await client.request(ListGroupsRequest, ListGroupsResponse, 4, { statesFilter: [], typesFilter: [] });
  assert.deepEqual(
    listed.groups.map((g) => g.groupId).filter((id) => id === 'both' || id === 'only-doomed'),
    ['both'],
  );

  await createTopic('doomed');
  const recreated = await client.request(OffsetFetchRequest, OffsetFetchResponse, 7, {
    groupId: 'only-doomed',
    topics: [{ name: 'doomed', partitionIndexes: [0] }],
    groups: [],
    requireStable: false,
  });
  assert.equal(recreated.topics[0]?.partitions[0]?.committedOffset, -1n);
});

/**
 * A broker started with `options` on a data directory holding a topic 'kept' of two partitions and
 * the offset changes `changes` in an earlier brook's offset files, moved into __consumer_offsets at the start.
 */
async function startOverOffsets(
  t: { after(fn: () => Promise<void>): void },
  changes: readonly OffsetChange[],
  options: BrokerOptions = {},
): Promise<WireClient> {
  const dataDir = await mkdtemp(joinPath(tmpdir(), 'brook-stored-offsets-'));
  const first = await startBroker({ port: 0, dataDir });
  const admin = await WireClient.connect(first.port);
  await admin.request(CreateTopicsRequest, CreateTopicsResponse, 5, {
    topics: [{ name: 'kept', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  admin.close();
  await first.close();
  await writeOldOffsetLog(dataDir, changes);
  const b = await startBroker({ port: 0, dataDir, ...options });
  const c = await WireClient.connect(b.port);
  t.after(async () => {
    c.close();
    await b.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return c;
}

const storedOffset = (topic: string, partition: number) => ({ topic, partition, offset: 7n, leaderEpoch: -1, metadata: '' });
const storedCommit = (groupId: string, offsets: ReturnType<typeof storedOffset>[], commitTimestamp: number): OffsetChange => ({
  kind: 'commit',
  groupId,
  offsets: offsets.map((o) => ({ ...o, commitTimestamp })),
});

test('offsets of a topic that is gone when the broker starts (a delete cut short, or made before deletes took offsets) are removed', async (t) => {
  const c = await startOverOffsets(t, [storedCommit('g', [storedOffset('gone', 0), storedOffset('kept', 0)], Date.now())]);
  const all = await c.request(OffsetFetchRequest, OffsetFetchResponse, 7, { groupId: 'g', topics: null, groups: [], requireStable: false });
  assert.deepEqual(
    all.topics.map((topic) => [topic.name, topic.partitions.map((p) => p.committedOffset)]),
    [['kept', [7n]]],
  );
});

test('offsets.retention.minutes: a group that only commits loses each offset that long after its commit, and goes with its last', async (t) => {
  // Committed two minutes before the start.
  const c = await startOverOffsets(
    t,
    [
      storedCommit('stale', [storedOffset('kept', 0)], Date.now() - 120_000),
      storedCommit('mixed', [storedOffset('kept', 0)], Date.now() - 120_000),
      storedCommit('mixed', [storedOffset('kept', 1)], Date.now()),
    ],
    { offsetsRetentionMinutes: 1, offsetsRetentionCheckIntervalMs: 20 },
  );
  const fetched = async (groupId: string) => {
    const answer = await c.request(OffsetFetchRequest, OffsetFetchResponse, 7, {
      groupId,
      topics: [{ name: 'kept', partitionIndexes: [0, 1] }],
      groups: [],
      requireStable: false,
    });
    return answer.topics[0]!.partitions.map((p) => p.committedOffset);
  };
  await until(async () => (await fetched('stale'))[0] === -1n, 'the stale offset has expired');
  assert.deepEqual(await fetched('mixed'), [-1n, 7n]);
  // The group goes once the removal of its last offset is stored, a moment after the offset is no longer served.
  const listed = async () => (await c.request(ListGroupsRequest, ListGroupsResponse, 4, { statesFilter: [], typesFilter: [] })).groups.map((g) => g.groupId);
  await until(async () => (await listed()).join() === 'mixed', 'only the group with an offset left is listed');
});

test("a large JoinGroup's metadata is kept intact after the memory its request arrived in is reused for the next large request", async () => {
  const metadata = Buffer.alloc(300_000);
  for (let i = 0; i < metadata.length; i++) metadata[i] = (i * 7) % 251;
  const joined = await join(2, 'large', '', metadata);
  assert.equal(joined.errorCode, ErrorCode.NONE);
  assert.equal((await syncAlone('large', joined, 'all')).errorCode, ErrorCode.NONE);
  // Large frames arrive in several socket reads and are gathered into reused memory: this one, smaller, overwrites it.
  const produced = await produceBatch(client, 't', 0, valuesBatch(2000, {}, 'o'.repeat(80)));
  assert.equal(produced.errorCode, ErrorCode.NONE);
  const described = await client.request(DescribeGroupsRequest, DescribeGroupsResponse, 0, { groups: ['large'], includeAuthorizedOperations: false });
  assert.ok(described.groups[0]!.members[0]!.memberMetadata.equals(metadata), 'the metadata as it was sent');
});
