/**
 * Group membership in `__consumer_offsets`, read as a tool of Kafka's ecosystem would
 * (helpers/group-records.ts, from Kafka's schema JSON, not brook's codecs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from '../src/broker/start-broker.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../src/protocol/messages/consumer-group-describe.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../src/protocol/messages/delete-groups.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { adminWithTopic, consumeAll, kafkajs } from './helpers/kafkajs.js';
import { groupRecords, latest, type ClassicValue, type CurrentAssignment, type TopicPartitions } from './helpers/group-records.js';
import { kafkaPartitionFor } from './helpers/kafka-tools.js';
import { QUICK_HEARTBEATS } from './helpers/group-broker.js';
import { consumerMember } from './helpers/platformatic-group.js';
import { until } from './helpers/until.js';
import { adminCommit } from './helpers/wire-commit.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

test("a kafkajs group's membership is its GroupMetadata record in __consumer_offsets: generation, leader, members; Empty once left, a tombstone once deleted", async (t) => {
  const broker = await startBroker();
  t.after(() => broker.close());
  const kafka = kafkajs(broker.bootstrap, 'classic-reader');
  const admin = await adminWithTopic(
    kafka,
    'orders',
    3,
    Array.from({ length: 9 }, (_, i) => ({ value: `v${i}` })),
  );
  t.after(() => admin.disconnect());

  const c = await WireClient.connect(broker.port);
  t.after(() => c.close());
  const home = kafkaPartitionFor('classic-readers', 50);
  // While the consumer reads, its group's record names it as leader and only member.
  const consumer = kafka.consumer({ groupId: 'classic-readers', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'orders', fromBeginning: true });
  let read = 0;
  await consumer.run({ eachMessage: async () => void read++ });
  await until(() => read === 9, 'the consumer read every message');
  const stable = (await latest(c, 'classic-readers')).get('2/')?.value as ClassicValue;
  assert.equal(stable.version, 3, 'GroupMetadataValue version 3, as Kafka 4 writes it');
  assert.equal(stable.protocolType, 'consumer');
  assert.ok(stable.generation >= 1);
  assert.equal(stable.members.length, 1);
  const [member] = stable.members;
  assert.equal(stable.leader, member!.memberId);
  assert.equal(member!.clientId, 'classic-reader');
  assert.ok(member!.subscription.includes(Buffer.from('orders')), "the subscription is the member's metadata for the chosen protocol");
  assert.ok(member!.assignment.includes(Buffer.from('orders')), 'the assignment the leader gave');
  assert.ok(member!.sessionTimeout > 0 && member!.rebalanceTimeout > 0);
  const described = await admin.describeGroups(['classic-readers']);
  assert.equal(described.groups[0]!.protocol, stable.protocol);

  await consumer.disconnect();
  await until(async () => ((await latest(c, 'classic-readers')).get('2/')?.value as ClassicValue).members.length === 0, 'the group is Empty');
  const empty = (await latest(c, 'classic-readers')).get('2/')!.value as ClassicValue;
  assert.equal(empty.generation, stable.generation + 1, 'the member left: a new generation, with no members');
  assert.equal(empty.leader, null);
  assert.ok(Math.abs(Number(empty.currentStateTimestamp) - Date.now()) < 600_000, 'stamped with when it became Empty');

  // A restart reads the group back from the topic: it lists as Empty in its generation.
  await broker.restart();
  const listed = await admin.listGroups();
  assert.deepEqual(
    listed.groups.filter((g) => g.groupId === 'classic-readers'),
    [{ groupId: 'classic-readers', protocolType: 'consumer' }],
  );

  await admin.deleteGroups(['classic-readers']);
  const again = await WireClient.connect(broker.port);
  t.after(() => again.close());
  assert.equal((await latest(again, 'classic-readers')).get('2/')?.value, null, 'a deleted group is a tombstone');
  for (let partition = 0; partition < 50; partition++) {
    if (partition === home) continue;
    assert.deepEqual(
      (await groupRecords(again, partition)).filter((r) => r.group === 'classic-readers'),
      [],
      `nothing of the group in partition ${partition}`,
    );
  }
});

test('a @platformatic/kafka consumer-protocol group is its ConsumerGroup* records: epochs, members, targets and assignments; tombstones as members leave and the group goes', async (t) => {
  const broker = await startBroker(QUICK_HEARTBEATS);
  t.after(() => broker.close());
  const c = await WireClient.connect(broker.port);
  t.after(() => c.close());
  await createTopic(c, 'kip848-records', 6);
  const group = 'kip848-recorded';
  const members = await Promise.all(['a', 'b'].map((clientId) => consumerMember(broker.bootstrap, group, clientId, 'kip848-records')));
  const describe = async () =>
    (await c.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, { groupIds: [group], includeAuthorizedOperations: false })).groups[0]!;
  await until(async () => {
    const g = await describe();
    const assigned = g.members.reduce((n, m) => n + m.assignment.topicPartitions.reduce((k, tp) => k + tp.partitions.length, 0), 0);
    return g.groupState === 'Stable' && g.members.length === 2 && assigned === 6;
  }, 'the group is Stable with both members sharing the six partitions');
  const described = await describe();
  const records = await latest(c, group);
  assert.deepEqual(records.get('3/')?.value, { epoch: described.groupEpoch }, "the group's epoch");
  assert.deepEqual(records.get('6/')?.value, { assignmentEpoch: described.assignmentEpoch }, "the target assignment's epoch");
  const partitionsOf = (list: readonly TopicPartitions[]) => list.flatMap((tp) => tp.partitions.map((p) => `${tp.topicId}/${p}`)).sort();
  for (const m of described.members) {
    const metadata = records.get(`5/${m.memberId}`)?.value as { clientId: string; subscribedTopicNames: string[] };
    assert.equal(metadata.clientId, m.clientId);
    assert.deepEqual(metadata.subscribedTopicNames, ['kip848-records']);
    const expected = m.assignment.topicPartitions.flatMap((tp) => tp.partitions.map((p) => `${tp.topicId}/${p}`)).sort();
    assert.deepEqual(partitionsOf(records.get(`7/${m.memberId}`)?.value as TopicPartitions[]), expected, `${m.clientId}'s target`);
    const current = records.get(`8/${m.memberId}`)?.value as CurrentAssignment;
    assert.equal(current.memberEpoch, m.memberEpoch, `${m.clientId}'s epoch`);
    assert.equal(current.state, 0, 'stable');
    assert.deepEqual(partitionsOf(current.assigned), expected, `${m.clientId}'s partitions`);
    assert.deepEqual(current.pendingRevocation, []);
    for (const tp of current.assigned) assert.equal(tp.assignmentEpochs?.length, tp.partitions.length, 'the epoch each partition was given at');
  }

  for (const { stream } of members) await stream.close();
  for (const { consumer } of members) await consumer.close();
  await until(async () => (await describe()).groupState === 'Empty', 'the group is Empty');
  const left = await latest(c, group);
  for (const m of described.members) {
    for (const type of [5, 7, 8]) assert.equal(left.get(`${type}/${m.memberId}`)?.value, null, `${m.clientId}'s record of type ${type} is a tombstone`);
  }
  assert.notEqual(left.get('3/')?.value, null, 'the Empty group stays');

  const deleted = await c.request(DeleteGroupsRequest, DeleteGroupsResponse, 2, { groupsNames: [group] });
  assert.equal(deleted.results[0]!.errorCode, 0);
  await until(async () => (await latest(c, group)).get('3/')?.value === null, "the group's epoch is a tombstone");
  const gone = await latest(c, group);
  assert.equal(gone.get('6/')?.value, null, "the target assignment's epoch is a tombstone");
  await broker.restart();
  const again = await WireClient.connect(broker.port);
  t.after(() => again.close());
  const after = await again.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, { groupIds: [group], includeAuthorizedOperations: false });
  assert.equal(after.groups[0]!.errorCode, 69, 'GROUP_ID_NOT_FOUND after a restart');
});

test("brook's cleaner drops a deleted group's tombstones once delete.retention.ms has passed", async (t) => {
  const broker = await startBroker({
    offsetsTopicNumPartitions: 1,
    offsetsTopicSegmentBytes: 2048,
    cleanerBackoffMs: 20,
    cleanerMinCleanableRatio: 0.01,
    cleanerDeleteRetentionMs: 0,
  });
  t.after(() => broker.close());
  const kafka = kafkajs(broker.bootstrap);
  const admin = await adminWithTopic(kafka, 't', 4, [{ value: 'one' }]);
  t.after(() => admin.disconnect());
  await consumeAll(kafka, 't', 'short-lived', 1);
  await admin.deleteGroups(['short-lived']);
  const c = await WireClient.connect(broker.port);
  t.after(() => c.close());
  assert.equal((await latest(c, 'short-lived', 1)).get('2/')?.value, null, 'the tombstone is written');
  // Later commits roll the tombstone out of the active segment, which is never cleaned.
  for (let i = 1; i <= 40; i++) {
    const r = await c.request(OffsetCommitRequest, OffsetCommitResponse, 8, adminCommit('busy', 't', [0, 1, 2, 3], BigInt(i)));
    assert.equal(r.topics[0]!.partitions[0]!.errorCode, 0);
  }
  await until(async () => (await latest(c, 'short-lived', 1)).size === 0, 'the cleaner dropped every record of the deleted group, tombstones too');
});
