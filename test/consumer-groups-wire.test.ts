/**
 * The consumer group protocol (KIP-848) on the wire: ConsumerGroupHeartbeat's errors in every
 * version served, reconciliation as two members see it, the group after a restart, and the
 * offsets fenced by member epoch.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  type ConsumerGroupHeartbeatRequestTopicPartitions,
} from '../src/protocol/messages/consumer-group-heartbeat.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../src/protocol/messages/consumer-group-describe.js';
import { ListGroupsRequest, ListGroupsResponse } from '../src/protocol/messages/list-groups.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

const TOPIC = 'kip848-wire';
const VERSIONS = [0, 1];

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker({ consumerGroupMaxSize: 2 });
  client = await WireClient.connect(broker.port);
  await createTopic(client, TOPIC, 4);
});

after(async () => {
  client.close();
  await broker.close();
});

interface Heartbeat {
  groupId: string;
  memberId?: string;
  memberEpoch: number;
  instanceId?: string | null;
  topics?: string[] | null;
  owned?: ConsumerGroupHeartbeatRequestTopicPartitions[] | null;
}

function heartbeat(version: number, h: Heartbeat): Promise<ConsumerGroupHeartbeatResponse> {
  return client.request(ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, version, {
    groupId: h.groupId,
    // From v1 the client names itself.
    memberId: h.memberId ?? (version >= 1 ? randomUUID() : ''),
    memberEpoch: h.memberEpoch,
    instanceId: h.instanceId ?? null,
    rackId: null,
    rebalanceTimeoutMs: h.memberEpoch === 0 ? 30_000 : -1,
    subscribedTopicNames: h.topics === undefined ? (h.memberEpoch === 0 ? [TOPIC] : null) : h.topics,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: h.owned === undefined ? (h.memberEpoch === 0 ? [] : null) : h.owned,
  });
}

const count = (r: ConsumerGroupHeartbeatResponse): number => r.assignment?.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) ?? 0;

for (const v of VERSIONS) {
  test(`ConsumerGroupHeartbeat v${v}: a join is given an id, an epoch and every partition; a leave ends it`, async () => {
    const groupId = `join-v${v}`;
    const joined = await heartbeat(v, { groupId, memberEpoch: 0 });
    assert.equal(joined.errorCode, ErrorCode.NONE);
    assert.ok(joined.memberId);
    assert.ok(joined.memberEpoch > 0);
    assert.equal(joined.heartbeatIntervalMs, 5000);
    assert.equal(count(joined), 4);
    const left = await heartbeat(v, { groupId, memberId: joined.memberId!, memberEpoch: -1 });
    assert.deepEqual([left.errorCode, left.memberEpoch], [ErrorCode.NONE, -1]);
  });

  test(`ConsumerGroupHeartbeat v${v}: UNKNOWN_MEMBER_ID for a member or group the broker does not know`, async () => {
    const groupId = `unknown-v${v}`;
    assert.equal((await heartbeat(v, { groupId, memberId: 'nobody', memberEpoch: 1 })).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    const joined = await heartbeat(v, { groupId, memberEpoch: 0 });
    assert.equal((await heartbeat(v, { groupId, memberId: 'nobody', memberEpoch: 1 })).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    assert.equal((await heartbeat(v, { groupId, memberId: 'nobody', memberEpoch: -1 })).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
    await heartbeat(v, { groupId, memberId: joined.memberId!, memberEpoch: -1 });
  });

  test(`ConsumerGroupHeartbeat v${v}: FENCED_MEMBER_EPOCH for an epoch ahead of the member's, or behind it owning what it may not`, async () => {
    const groupId = `fenced-v${v}`;
    const joined = await heartbeat(v, { groupId, memberEpoch: 0 });
    const memberId = joined.memberId!;
    assert.equal((await heartbeat(v, { groupId, memberId, memberEpoch: joined.memberEpoch + 1 })).errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
    // A second member moves the group on: the first is asked to give up partitions, and stays at its epoch until it does.
    const other = await heartbeat(v, { groupId, memberEpoch: 0 });
    assert.equal(count(other), 0, 'nothing is given before its owner revokes it');
    const owned = joined.assignment!.topicPartitions;
    const asked = await heartbeat(v, { groupId, memberId, memberEpoch: joined.memberEpoch, owned, topics: [TOPIC] });
    assert.equal(asked.memberEpoch, joined.memberEpoch);
    assert.equal(count(asked), 2);
    const revoked = await heartbeat(v, { groupId, memberId, memberEpoch: joined.memberEpoch, owned: asked.assignment!.topicPartitions, topics: [TOPIC] });
    assert.ok(revoked.memberEpoch > joined.memberEpoch, 'once it revoked, it moves to the new epoch');
    // The old epoch again, claiming what it gave up: fenced.
    assert.equal((await heartbeat(v, { groupId, memberId, memberEpoch: joined.memberEpoch, owned })).errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
    const taken = await heartbeat(v, { groupId, memberId: other.memberId!, memberEpoch: other.memberEpoch, owned: [], topics: [TOPIC] });
    assert.equal(count(taken), 2, 'the other member takes what was released');
  });

  test(`ConsumerGroupHeartbeat v${v}: UNRELEASED_INSTANCE_ID while a static member holds its instance id; it returns after leaving with epoch -2`, async () => {
    const groupId = `static-v${v}`;
    const first = await heartbeat(v, { groupId, memberEpoch: 0, instanceId: 'i-1' });
    assert.equal(first.errorCode, ErrorCode.NONE);
    assert.equal((await heartbeat(v, { groupId, memberEpoch: 0, instanceId: 'i-1' })).errorCode, ErrorCode.UNRELEASED_INSTANCE_ID);
    const paused = await heartbeat(v, { groupId, memberId: first.memberId!, memberEpoch: -2, instanceId: 'i-1' });
    assert.deepEqual([paused.errorCode, paused.memberEpoch], [ErrorCode.NONE, -2]);
    const back = await heartbeat(v, { groupId, memberEpoch: 0, instanceId: 'i-1' });
    assert.equal(back.errorCode, ErrorCode.NONE);
    assert.equal(back.memberEpoch, first.memberEpoch, 'it takes its place back, at its epoch');
    assert.equal(count(back), 4);
    await heartbeat(v, { groupId, memberId: back.memberId!, memberEpoch: -1, instanceId: 'i-1' });
  });

  test(`ConsumerGroupHeartbeat v${v}: GROUP_MAX_SIZE_REACHED past group.consumer.max.size`, async () => {
    const groupId = `full-v${v}`;
    const members = [await heartbeat(v, { groupId, memberEpoch: 0 }), await heartbeat(v, { groupId, memberEpoch: 0 })];
    assert.ok(members.every((m) => m.errorCode === ErrorCode.NONE));
    assert.equal((await heartbeat(v, { groupId, memberEpoch: 0 })).errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
    for (const m of members) await heartbeat(v, { groupId, memberId: m.memberId!, memberEpoch: -1 });
  });

  test(`ConsumerGroupHeartbeat v${v}: INVALID_REQUEST for a join without a subscription`, async () => {
    assert.equal((await heartbeat(v, { groupId: `invalid-v${v}`, memberEpoch: 0, topics: null })).errorCode, ErrorCode.INVALID_REQUEST);
  });
}

test('ConsumerGroupHeartbeat v1: INVALID_REQUEST without a member id, which v0 hands out', async () => {
  assert.equal((await heartbeat(1, { groupId: 'no-id', memberId: '', memberEpoch: 0 })).errorCode, ErrorCode.INVALID_REQUEST);
});

test('OffsetCommit to a consumer group: STALE_MEMBER_EPOCH at an epoch the member is not at, UNKNOWN_MEMBER_ID from a stranger', async () => {
  const groupId = 'commits';
  const joined = await heartbeat(1, { groupId, memberEpoch: 0 });
  const commit = async (memberId: string, epoch: number): Promise<number> => {
    const r = await client.request(OffsetCommitRequest, OffsetCommitResponse, 9, {
      groupId,
      generationIdOrMemberEpoch: epoch,
      memberId,
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        { name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null }] },
      ],
    });
    return r.topics[0]!.partitions[0]!.errorCode;
  };
  assert.equal(await commit(joined.memberId!, joined.memberEpoch), ErrorCode.NONE);
  assert.equal(await commit(joined.memberId!, joined.memberEpoch + 1), ErrorCode.STALE_MEMBER_EPOCH);
  assert.equal(await commit('stranger', joined.memberEpoch), ErrorCode.UNKNOWN_MEMBER_ID);
  await heartbeat(1, { groupId, memberId: joined.memberId!, memberEpoch: -1 });
  assert.equal(await commit('', -1), ErrorCode.NONE, 'an Empty group takes commits from outside it');
});

test('a consumer group, its members, epochs and assignments come back after a restart; ListGroups filters it by type', async () => {
  const groupId = 'durable';
  const joined = await heartbeat(1, { groupId, memberEpoch: 0 });
  await broker.restart();
  client.close();
  client = await WireClient.connect(broker.port);
  const described = await client.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, {
    groupIds: [groupId, 'none'],
    includeAuthorizedOperations: false,
  });
  const [group, none] = described.groups;
  assert.equal(group!.groupState, 'Stable');
  assert.deepEqual(
    group!.members.map((m) => [m.memberId, m.memberEpoch, m.assignment.topicPartitions[0]!.partitions]),
    [[joined.memberId, joined.memberEpoch, [0, 1, 2, 3]]],
  );
  assert.equal(none!.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  const again = await heartbeat(1, {
    groupId,
    memberId: joined.memberId!,
    memberEpoch: joined.memberEpoch,
    owned: joined.assignment!.topicPartitions,
    topics: [TOPIC],
  });
  assert.deepEqual([again.errorCode, again.memberEpoch], [ErrorCode.NONE, joined.memberEpoch], 'the member goes on at its epoch');
  const list = async (typesFilter: string[]): Promise<string[]> =>
    (await client.request(ListGroupsRequest, ListGroupsResponse, 5, { statesFilter: [], typesFilter })).groups
      .filter((g) => g.groupId === groupId)
      .map((g) => g.groupType);
  assert.deepEqual(await list(['consumer']), ['consumer']);
  assert.deepEqual(await list(['classic']), []);
  await heartbeat(1, { groupId, memberId: joined.memberId!, memberEpoch: -1 });
});
