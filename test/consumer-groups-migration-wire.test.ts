/**
 * Classic and consumer-protocol members in one group on the wire (`group.consumer.migration.policy`):
 * the online upgrade when a consumer-protocol member joins a classic group, a classic member's
 * JoinGroup, SyncGroup, Heartbeat and LeaveGroup inside a consumer group, and the downgrade when the
 * last consumer-protocol member leaves; each in every version of the classic APIs served. With the
 * policy `disabled`, the refusals Kafka gives.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startBroker, type Broker, type BrokerOptions } from '../src/broker/start-broker.js';
import { KAFKA_VERSIONS } from '../src/protocol/kafka-releases.js';
import { assignedPartitions } from '../src/groups/consumer-protocol.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../src/protocol/messages/consumer-group-describe.js';
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../src/protocol/messages/consumer-group-heartbeat.js';
import { HeartbeatRequest, HeartbeatResponse } from '../src/protocol/messages/heartbeat.js';
import { JoinGroupRequest, JoinGroupResponse } from '../src/protocol/messages/join-group.js';
import { LeaveGroupRequest, LeaveGroupResponse } from '../src/protocol/messages/leave-group.js';
import { ListGroupsRequest, ListGroupsResponse } from '../src/protocol/messages/list-groups.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { SyncGroupRequest, SyncGroupResponse } from '../src/protocol/messages/sync-group.js';
import { assignment as assignmentOf, subscription as subscriptionOf } from './helpers/consumer-protocol-bytes.js';
import { WireClient } from './helpers/wire-client.js';
import { adminCommit } from './helpers/wire-commit.js';
import { consumerHeartbeat, joinGroup } from './helpers/wire-group-members.js';
import { createTopic } from './helpers/wire-produce.js';

const TOPIC = 'migration-wire';
const PARTITIONS = 6;
/** Every JoinGroup version served, each with the SyncGroup, Heartbeat and LeaveGroup versions of its release, and a ConsumerGroupHeartbeat version. */
const VERSIONS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((join) => ({
  join,
  sync: Math.min(join, 5),
  heartbeat: Math.min(join, 4),
  leave: Math.min(join, 5),
  consumer: join % 2,
}));
type Versions = (typeof VERSIONS)[number];

let broker: Broker;
let client: WireClient;

before(async () => {
  ({ broker, client } = await open({}));
});

after(async () => {
  client.close();
  await broker.close();
});

/** A broker of the newest release: Kafka 4.0 removed JoinGroup v0–1, and 4.1 serves them again. */
async function open(options: BrokerOptions): Promise<{ broker: Broker; client: WireClient }> {
  const b = await startBroker({ kafkaVersion: KAFKA_VERSIONS[KAFKA_VERSIONS.length - 1], ...options });
  const c = await WireClient.connect(b.port);
  await createTopic(c, TOPIC, PARTITIONS);
  // The topic's id, as a consumer-protocol member is given it.
  const probe = await consumerBeat(c, VERSIONS[0]!, 'probe', '', 0);
  topicIds.set(c, probe.assignment!.topicPartitions[0]!.topicId);
  await consumerBeat(c, VERSIONS[0]!, 'probe', probe.memberId!, -1);
  return { broker: b, client: c };
}

const topicIds = new WeakMap<WireClient, string>();

const subscription = (owned?: readonly number[]): Buffer => subscriptionOf(TOPIC, owned);
const assignment = (partitions: readonly number[]): Buffer => assignmentOf(TOPIC, partitions);

const partitionsOf = (buffer: Buffer): number[] => (assignedPartitions(buffer) ?? []).flatMap((t) => t.partitions).sort((a, b) => a - b);

const join = (c: WireClient, v: Versions, groupId: string, memberId: string, owned?: readonly number[]): Promise<JoinGroupResponse> =>
  joinGroup(c, v.join, groupId, memberId, subscription(owned));

function sync(
  c: WireClient,
  v: Versions,
  groupId: string,
  m: { memberId: string; generationId: number },
  assignments: { memberId: string; assignment: Buffer }[] = [],
) {
  return c.request(SyncGroupRequest, SyncGroupResponse, v.sync, {
    groupId,
    generationId: m.generationId,
    memberId: m.memberId,
    groupInstanceId: null,
    protocolType: v.sync >= 5 ? 'consumer' : null,
    protocolName: v.sync >= 5 ? 'range' : null,
    assignments,
  });
}

async function beat(c: WireClient, v: Versions, groupId: string, m: { memberId: string; generationId: number }): Promise<number> {
  const r = await c.request(HeartbeatRequest, HeartbeatResponse, v.heartbeat, {
    groupId,
    generationId: m.generationId,
    memberId: m.memberId,
    groupInstanceId: null,
  });
  return r.errorCode;
}

async function leave(c: WireClient, v: Versions, groupId: string, memberId: string): Promise<number> {
  const r = await c.request(LeaveGroupRequest, LeaveGroupResponse, v.leave, {
    groupId,
    memberId: v.leave < 3 ? memberId : '',
    members: v.leave >= 3 ? [{ memberId, groupInstanceId: null, reason: null }] : [],
  });
  return v.leave >= 3 ? (r.members[0]?.errorCode ?? r.errorCode) : r.errorCode;
}

function consumerBeat(c: WireClient, v: Versions, groupId: string, memberId: string, memberEpoch: number, owned: number[] | null = null) {
  return consumerHeartbeat(c, v.consumer, groupId, memberId, memberEpoch, TOPIC, owned === null ? null : [{ topicId: topicIds.get(c)!, partitions: owned }]);
}

const heldBy = (r: ConsumerGroupHeartbeatResponse): number[] => (r.assignment?.topicPartitions ?? []).flatMap((t) => t.partitions).sort((a, b) => a - b);

async function groupType(c: WireClient, groupId: string): Promise<string | undefined> {
  const listed = await c.request(ListGroupsRequest, ListGroupsResponse, 5, { statesFilter: [], typesFilter: [] });
  return listed.groups.find((g) => g.groupId === groupId)?.groupType;
}

/** A classic group whose one member, its leader, took every partition. */
async function classicGroup(c: WireClient, v: Versions, groupId: string): Promise<{ memberId: string; generationId: number }> {
  const joined = await join(c, v, groupId, '');
  assert.equal(joined.errorCode, ErrorCode.NONE);
  const all = [...Array(PARTITIONS).keys()];
  const synced = await sync(c, v, groupId, joined, [{ memberId: joined.memberId, assignment: assignment(all) }]);
  assert.equal(synced.errorCode, ErrorCode.NONE);
  return { memberId: joined.memberId, generationId: joined.generationId };
}

for (const v of VERSIONS) {
  test(`JoinGroup v${v.join}, SyncGroup v${v.sync}, Heartbeat v${v.heartbeat}, LeaveGroup v${v.leave}, ConsumerGroupHeartbeat v${v.consumer}: upgrade, a classic member reconciling by rejoins, downgrade`, async () => {
    const groupId = `migrate-${v.join}`;
    const a = await classicGroup(client, v, groupId);
    assert.equal(await groupType(client, groupId), 'classic');

    // The upgrade: the consumer-protocol member joins at the next epoch and waits for what A still owns.
    const cId = randomUUID();
    const c = await consumerBeat(client, v, groupId, cId, 0);
    assert.equal(c.errorCode, ErrorCode.NONE);
    assert.equal(c.memberEpoch, a.generationId + 1);
    assert.deepEqual(heldBy(c), []);
    assert.equal(await groupType(client, groupId), 'consumer');
    const described = await client.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, {
      groupIds: [groupId],
      includeAuthorizedOperations: false,
    });
    const types = Object.fromEntries(described.groups[0]!.members.map((m) => [m.memberId, m.memberType]));
    assert.deepEqual(types, { [a.memberId]: 0, [cId]: 1 });

    // A is asked to rejoin; its rejoin (an eager member: it owns nothing then) releases what it must give up.
    assert.equal(await beat(client, v, groupId, a), ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoined = await join(client, v, groupId, a.memberId);
    assert.equal(rejoined.errorCode, ErrorCode.NONE);
    assert.equal(rejoined.generationId, c.memberEpoch);
    assert.equal(rejoined.protocolName, 'range');
    assert.equal(rejoined.leader, '');
    assert.deepEqual(rejoined.members, []);
    const synced = await sync(client, v, groupId, rejoined);
    assert.equal(synced.errorCode, ErrorCode.NONE);
    const kept = partitionsOf(synced.assignment);
    assert.equal(kept.length, PARTITIONS / 2);
    const a2 = { memberId: a.memberId, generationId: rejoined.generationId };
    assert.equal(await beat(client, v, groupId, a2), ErrorCode.NONE);
    // The old generation is over.
    assert.equal(await beat(client, v, groupId, a), ErrorCode.ILLEGAL_GENERATION);

    // C is now given the rest.
    const c2 = await consumerBeat(client, v, groupId, c.memberId!, c.memberEpoch, []);
    assert.equal(c2.errorCode, ErrorCode.NONE);
    assert.deepEqual(
      heldBy(c2),
      [...Array(PARTITIONS).keys()].filter((p) => !kept.includes(p)),
    );

    // The downgrade: C leaves, A is alone in a classic group again and rejoins to be its leader.
    const left = await consumerBeat(client, v, groupId, c.memberId!, -1);
    assert.equal(left.errorCode, ErrorCode.NONE);
    assert.equal(await groupType(client, groupId), 'classic');
    assert.equal(await beat(client, v, groupId, a2), ErrorCode.REBALANCE_IN_PROGRESS);
    const back = await join(client, v, groupId, a.memberId);
    assert.equal(back.errorCode, ErrorCode.NONE);
    assert.equal(back.leader, a.memberId);
    assert.equal(back.generationId, a2.generationId + 1);
    const all = [...Array(PARTITIONS).keys()];
    const resynced = await sync(client, v, groupId, back, [{ memberId: a.memberId, assignment: assignment(all) }]);
    assert.deepEqual(partitionsOf(resynced.assignment), all);
    assert.equal(await leave(client, v, groupId, a.memberId), ErrorCode.NONE);
  });

  test(`JoinGroup v${v.join}: a new classic member joins a consumer group; LeaveGroup v${v.leave} and Heartbeat v${v.heartbeat} answer for it`, async () => {
    const groupId = `classic-in-consumer-${v.join}`;
    const c = await consumerBeat(client, v, groupId, randomUUID(), 0);
    assert.deepEqual(heldBy(c), [...Array(PARTITIONS).keys()]);
    const b = await join(client, v, groupId, '');
    assert.equal(b.errorCode, ErrorCode.NONE);
    assert.equal(b.generationId, c.memberEpoch + 1);
    // What C owns is not B's until C lets it go.
    const synced = await sync(client, v, groupId, b);
    assert.deepEqual(partitionsOf(synced.assignment), []);
    const c2 = await consumerBeat(client, v, groupId, c.memberId!, c.memberEpoch, heldBy(c));
    const revoked = heldBy(c2);
    assert.equal(revoked.length, PARTITIONS / 2);
    assert.equal(await beat(client, v, groupId, b), ErrorCode.NONE, 'nothing of its target is free yet');
    await consumerBeat(client, v, groupId, c.memberId!, c.memberEpoch, revoked);
    // Its partitions are free: B rejoins for them.
    assert.equal(await beat(client, v, groupId, b), ErrorCode.REBALANCE_IN_PROGRESS);
    const again = await join(client, v, groupId, b.memberId);
    const got = partitionsOf((await sync(client, v, groupId, again)).assignment);
    assert.deepEqual(
      got,
      [...Array(PARTITIONS).keys()].filter((p) => !revoked.includes(p)),
    );
    assert.equal(await beat(client, v, groupId, { memberId: b.memberId, generationId: again.generationId + 1 }), ErrorCode.ILLEGAL_GENERATION);
    assert.equal(await leave(client, v, groupId, 'no-such-member'), ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal(await leave(client, v, groupId, b.memberId), ErrorCode.NONE);
    assert.equal(await groupType(client, groupId), 'consumer');
    assert.equal(await beat(client, v, groupId, { memberId: b.memberId, generationId: again.generationId }), ErrorCode.UNKNOWN_MEMBER_ID);
  });
}

test('a classic member that still owns what it must give up keeps it until a rejoin shows it released', async () => {
  const v = VERSIONS[9]!;
  const groupId = 'cooperative';
  const a = await classicGroup(client, v, groupId);
  const all = [...Array(PARTITIONS).keys()];
  const c = await consumerBeat(client, v, groupId, randomUUID(), 0);
  assert.equal(await beat(client, v, groupId, a), ErrorCode.REBALANCE_IN_PROGRESS);
  // A cooperative member rejoins owning everything still: it keeps its share and must rejoin again to give up the rest.
  const rejoined = await join(client, v, groupId, a.memberId, all);
  const kept = partitionsOf((await sync(client, v, groupId, rejoined)).assignment);
  assert.equal(kept.length, PARTITIONS / 2);
  const c2 = await consumerBeat(client, v, groupId, c.memberId!, c.memberEpoch, []);
  assert.deepEqual(heldBy(c2), [], 'A has not released its partitions yet');
  const a2 = { memberId: a.memberId, generationId: rejoined.generationId };
  assert.equal(await beat(client, v, groupId, a2), ErrorCode.REBALANCE_IN_PROGRESS);
  const again = await join(client, v, groupId, a.memberId, kept);
  assert.deepEqual(partitionsOf((await sync(client, v, groupId, again)).assignment), kept);
  const c3 = await consumerBeat(client, v, groupId, c.memberId!, c.memberEpoch, []);
  assert.deepEqual(
    heldBy(c3),
    all.filter((p) => !kept.includes(p)),
  );
});

test('group.consumer.migration.policy disabled: no upgrade (GROUP_ID_NOT_FOUND), no classic member in a consumer group (INCONSISTENT_GROUP_PROTOCOL)', async (t) => {
  const off = await open({ consumerGroupMigrationPolicy: 'disabled' });
  t.after(async () => {
    off.client.close();
    await off.broker.close();
  });
  for (const v of VERSIONS) {
    const classic = `off-classic-${v.join}`;
    await classicGroup(off.client, v, classic);
    const refused = await consumerBeat(off.client, v, classic, randomUUID(), 0);
    assert.equal(refused.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
    assert.match(refused.errorMessage ?? '', /online upgrade is disabled/);
    assert.equal(await groupType(off.client, classic), 'classic');

    const consumer = `off-consumer-${v.join}`;
    await consumerBeat(off.client, v, consumer, randomUUID(), 0);
    const joined = await join(off.client, v, consumer, '');
    assert.equal(joined.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  }
});

test('group.consumer.migration.policy upgrade: the group stays a consumer group when only classic members are left', async (t) => {
  const up = await open({ consumerGroupMigrationPolicy: 'upgrade' });
  t.after(async () => {
    up.client.close();
    await up.broker.close();
  });
  const v = VERSIONS[9]!;
  const a = await classicGroup(up.client, v, 'up');
  const c = await consumerBeat(up.client, v, 'up', randomUUID(), 0);
  assert.equal(c.errorCode, ErrorCode.NONE);
  await consumerBeat(up.client, v, 'up', c.memberId!, -1);
  assert.equal(await groupType(up.client, 'up'), 'consumer');
  assert.equal(await beat(up.client, v, 'up', a), ErrorCode.REBALANCE_IN_PROGRESS);
});

test('a classic member of a consumer group comes back after a restart with its protocols: it syncs, heartbeats, and leads the group once downgraded', async () => {
  const v = VERSIONS[9]!;
  const groupId = 'durable-mixed';
  const a = await classicGroup(client, v, groupId);
  const c = await consumerBeat(client, v, groupId, randomUUID(), 0);
  assert.equal(await beat(client, v, groupId, a), ErrorCode.REBALANCE_IN_PROGRESS);
  const rejoined = await join(client, v, groupId, a.memberId);
  const kept = partitionsOf((await sync(client, v, groupId, rejoined)).assignment);

  await broker.restart();
  const before = client;
  client.close();
  client = await WireClient.connect(broker.port);
  topicIds.set(client, topicIds.get(before)!);
  const described = await client.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, {
    groupIds: [groupId],
    includeAuthorizedOperations: false,
  });
  const a2 = { memberId: a.memberId, generationId: rejoined.generationId };
  const member = described.groups[0]!.members.find((m) => m.memberId === a.memberId)!;
  assert.deepEqual([member.memberType, member.memberEpoch], [0, rejoined.generationId]);
  assert.equal(await beat(client, v, groupId, a2), ErrorCode.NONE);
  const synced = await sync(client, v, groupId, a2);
  assert.deepEqual([synced.errorCode, synced.protocolName, partitionsOf(synced.assignment)], [ErrorCode.NONE, 'range', kept]);

  await consumerBeat(client, v, groupId, c.memberId!, -1);
  assert.equal(await groupType(client, groupId), 'classic');
  const back = await join(client, v, groupId, a.memberId);
  assert.deepEqual([back.errorCode, back.leader, back.protocolName], [ErrorCode.NONE, a.memberId, 'range']);
  assert.deepEqual(
    back.members.map((m) => [m.memberId, m.metadata.equals(subscription())]),
    [[a.memberId, true]],
  );
});

test('a static classic member of a consumer group: its new incarnation takes its place, the old one is fenced', async () => {
  const groupId = 'static-classic';
  const c = await consumerBeat(client, VERSIONS[9]!, groupId, randomUUID(), 0);
  const staticJoin = (memberId: string) =>
    client.request(JoinGroupRequest, JoinGroupResponse, 9, {
      groupId,
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 30_000,
      memberId,
      groupInstanceId: 'instance-1',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: subscription() }],
      reason: null,
    });
  const first = await staticJoin('');
  assert.equal(first.errorCode, ErrorCode.NONE, 'a static member needs no member id handed out');
  assert.equal((await staticJoin('another-id')).errorCode, ErrorCode.FENCED_INSTANCE_ID);
  const second = await staticJoin('');
  assert.equal(second.errorCode, ErrorCode.NONE);
  assert.notEqual(second.memberId, first.memberId);
  const beatAs = (memberId: string, generationId: number) =>
    client.request(HeartbeatRequest, HeartbeatResponse, 4, { groupId, generationId, memberId, groupInstanceId: 'instance-1' });
  assert.equal((await beatAs(first.memberId, first.generationId)).errorCode, ErrorCode.FENCED_INSTANCE_ID);
  assert.equal((await beatAs(second.memberId, second.generationId)).errorCode, ErrorCode.NONE);
  const described = await client.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, {
    groupIds: [groupId],
    includeAuthorizedOperations: false,
  });
  assert.deepEqual(described.groups[0]!.members.map((m) => m.memberId).sort(), [c.memberId!, second.memberId].sort());
});

test('a classic member of a consumer group commits at its generation with any OffsetCommit version; another generation is ILLEGAL_GENERATION', async () => {
  const groupId = 'classic-commits';
  await consumerBeat(client, VERSIONS[9]!, groupId, randomUUID(), 0);
  const b = await join(client, VERSIONS[9]!, groupId, '');
  const commit = async (version: number, generationId: number): Promise<number> => {
    const request = { ...adminCommit(groupId, TOPIC, [0], 1n), generationIdOrMemberEpoch: generationId, memberId: b.memberId };
    const r = await client.request(OffsetCommitRequest, OffsetCommitResponse, version, request);
    return r.topics[0]!.partitions[0]!.errorCode;
  };
  for (const version of [2, 8, 9]) {
    assert.equal(await commit(version, b.generationId), ErrorCode.NONE, `v${version}`);
    assert.equal(await commit(version, b.generationId - 1), ErrorCode.ILLEGAL_GENERATION, `v${version}`);
  }
});

test('a classic static member taking the place of the last consumer-protocol member makes the group classic, keeping its assignment', async () => {
  const groupId = 'static-downgrade';
  const v = VERSIONS[9]!;
  // A consumer-protocol static member with a classic member beside it.
  const c = await client.request(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, 1, {
    groupId,
    memberId: randomUUID(),
    memberEpoch: 0,
    instanceId: 'instance-2',
    rackId: null,
    rebalanceTimeoutMs: 30_000,
    subscribedTopicNames: [TOPIC],
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: [],
  });
  assert.equal(c.errorCode, ErrorCode.NONE);
  const b = await join(client, v, groupId, '');
  assert.equal(b.errorCode, ErrorCode.NONE);
  const bSynced = await sync(client, v, groupId, b);
  assert.equal(bSynced.errorCode, ErrorCode.NONE);
  // The consumer-protocol member's client is replaced by a classic one with the same instance id.
  const replacement = await client.request(JoinGroupRequest, JoinGroupResponse, 9, {
    groupId,
    sessionTimeoutMs: 30_000,
    rebalanceTimeoutMs: 30_000,
    memberId: '',
    groupInstanceId: 'instance-2',
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription() }],
    reason: null,
  });
  assert.equal(replacement.errorCode, ErrorCode.NONE);
  assert.equal(await groupType(client, groupId), 'classic');
  const synced = await client.request(SyncGroupRequest, SyncGroupResponse, 5, {
    groupId,
    generationId: replacement.generationId,
    memberId: replacement.memberId,
    groupInstanceId: 'instance-2',
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [],
  });
  assert.equal(synced.errorCode, ErrorCode.NONE);
  // The replaced member's share of the target: half, the other half B's.
  assert.equal(partitionsOf(synced.assignment).length, PARTITIONS / 2);
  assert.equal(await beat(client, v, groupId, { memberId: replacement.memberId, generationId: replacement.generationId }), ErrorCode.NONE);
});
