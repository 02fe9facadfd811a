import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from '../src/broker/start-broker.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../src/protocol/messages/describe-configs.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../src/protocol/messages/find-coordinator.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../src/protocol/messages/delete-groups.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { readStoredRecords } from '../src/protocol/stored-records.js';
import { adminWithTopic, consumeAll, kafkajs } from './helpers/kafkajs.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchAllBatches } from './helpers/wire-fetch.js';
import { createTopic } from './helpers/wire-produce.js';
import { until } from './helpers/until.js';
import { kafkaPartitionFor, SchemaReader } from './helpers/kafka-tools.js';
import { adminCommit } from './helpers/wire-commit.js';

const OFFSETS = '__consumer_offsets';

async function offsetsTopicPartitions(c: WireClient): Promise<number | undefined> {
  const res = await c.request(MetadataRequest, MetadataResponse, 12, {
    topics: [{ topicId: ZERO_UUID, name: OFFSETS }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  const topic = res.topics[0]!;
  return topic.errorCode === 0 ? topic.partitions.length : undefined;
}

test("a group's FindCoordinator creates __consumer_offsets with Kafka's configs; a transactional id's does not", async (t) => {
  const broker = await startBroker({ offsetsTopicNumPartitions: 7, offsetsTopicSegmentBytes: 1 << 20 });
  const c = await WireClient.connect(broker.port);
  t.after(async () => {
    c.close();
    await broker.close();
  });
  assert.equal(await offsetsTopicPartitions(c), undefined, 'not there at the start');
  const find = (keyType: number) => c.request(FindCoordinatorRequest, FindCoordinatorResponse, 4, { key: '', keyType, coordinatorKeys: ['g'] });
  assert.equal((await find(1)).coordinators[0]!.errorCode, 0);
  assert.equal(await offsetsTopicPartitions(c), undefined, 'a transactional id needs no offsets topic');
  assert.equal((await find(0)).coordinators[0]!.errorCode, 0);
  assert.equal(await offsetsTopicPartitions(c), 7);
  const described = await c.request(DescribeConfigsRequest, DescribeConfigsResponse, 4, {
    resources: [{ resourceType: 2, resourceName: OFFSETS, configurationKeys: ['cleanup.policy', 'segment.bytes', 'compression.type'] }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  const configs = Object.fromEntries(described.results[0]!.configs.map((config) => [config.name, config.value]));
  assert.deepEqual(configs, { 'cleanup.policy': 'compact', 'segment.bytes': String(1 << 20), 'compression.type': 'producer' });
});

// ---- reading the topic as a tool of Kafka's ecosystem would ----

interface OffsetCommitRecord {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  /** Null for a tombstone. */
  readonly value: { version: number; offset: bigint; leaderEpoch: number; metadata: string; commitTimestamp: bigint } | null;
}

function decodeOffsetCommit(key: Buffer, value: Buffer | null): OffsetCommitRecord | undefined {
  const k = new SchemaReader(key);
  const type = k.int16();
  // 0 and 1 are offset commits; 2 is a group's metadata.
  if (type > 1) return undefined;
  const record = { group: k.string(false), topic: k.string(false), partition: k.int32() };
  assert.ok(k.done, 'the key is read whole');
  if (value === null) return { ...record, value: null };
  const v = new SchemaReader(value);
  const version = v.int16();
  assert.ok(version <= 3, `value version ${version}`);
  const offset = v.int64();
  const leaderEpoch = version >= 3 ? v.int32() : -1;
  const metadata = v.string(false);
  const commitTimestamp = v.int64();
  if (version === 1) v.int64(); // expireTimestamp
  assert.ok(v.done, 'the value is read whole');
  return { ...record, value: { version, offset, leaderEpoch, metadata, commitTimestamp } };
}

/** Every offset commit record of one partition of __consumer_offsets, in order, read with plain Fetch requests. */
async function offsetCommitRecords(c: WireClient, partition: number): Promise<OffsetCommitRecord[]> {
  const records: OffsetCommitRecord[] = [];
  for (const batch of await fetchAllBatches(c, OFFSETS, partition)) {
    for (const r of readStoredRecords(batch, 0, Infinity, 1 << 20)) {
      const decoded = decodeOffsetCommit(r.key!, r.value);
      if (decoded !== undefined) records.push(decoded);
    }
  }
  return records;
}

/** The last record of each key: what a compacted reading of the topic holds. */
function lastByKey(records: readonly OffsetCommitRecord[]): Map<string, OffsetCommitRecord> {
  return new Map(records.map((r) => [`${r.group}/${r.topic}/${r.partition}`, r]));
}

test('each commit a kafkajs consumer group makes is a record in __consumer_offsets, in Kafka format, in the partition Kafka would choose; a restart keeps them', async (t) => {
  const broker = await startBroker();
  t.after(() => broker.close());
  const kafka = kafkajs(broker.bootstrap);
  const admin = await adminWithTopic(
    kafka,
    'orders',
    3,
    Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
  );
  t.after(() => admin.disconnect());
  await consumeAll(kafka, 'orders', 'readers', 30);
  const committed = (await admin.fetchOffsets({ groupId: 'readers', topics: ['orders'] }))[0]!.partitions;
  assert.equal(
    committed.reduce((sum, p) => sum + Number(p.offset), 0),
    30,
    'the group committed every message it read',
  );

  const c = await WireClient.connect(broker.port);
  t.after(() => c.close());
  const home = kafkaPartitionFor('readers', 50);
  const records = await offsetCommitRecords(c, home);
  const latest = lastByKey(records);
  for (const p of committed) {
    const record = latest.get(`readers/orders/${p.partition}`);
    assert.ok(record?.value, `partition ${p.partition}'s commit is in __consumer_offsets-${home}`);
    assert.equal(record.value.offset, BigInt(p.offset));
    assert.equal(record.value.version, 3, 'value version 3, as Kafka 4.0 writes without an expire timestamp');
    assert.ok(Math.abs(Number(record.value.commitTimestamp) - Date.now()) < 600_000, 'stamped with the commit time');
  }
  for (let partition = 0; partition < 50; partition++) {
    if (partition === home) continue;
    assert.deepEqual(
      (await offsetCommitRecords(c, partition)).filter((r) => r.group === 'readers'),
      [],
      `no record of the group in partition ${partition}`,
    );
  }

  c.close();
  await broker.restart();
  const again = (await admin.fetchOffsets({ groupId: 'readers', topics: ['orders'] }))[0]!.partitions;
  assert.deepEqual(again, committed, 'the offsets are read back from the topic at the start');

  // Deleting the group leaves a tombstone for each of its offsets.
  await admin.deleteGroups(['readers']);
  const after = await WireClient.connect(broker.port);
  t.after(() => after.close());
  const tombstoned = lastByKey(await offsetCommitRecords(after, home));
  for (const p of committed) assert.equal(tombstoned.get(`readers/orders/${p.partition}`)?.value, null, `partition ${p.partition}'s offset tombstoned`);
  await broker.restart();
  assert.deepEqual(
    (await admin.fetchOffsets({ groupId: 'readers', topics: ['orders'] }))[0]!.partitions.map((p) => p.offset),
    ['-1', '-1', '-1'],
  );
});

/** Commits `offset` for partitions 0 to 3 of topic 't' in `groupId`, as an admin tool would (no generation). */
async function commitFour(c: WireClient, groupId: string, offset: number): Promise<void> {
  const r = await c.request(OffsetCommitRequest, OffsetCommitResponse, 8, adminCommit(groupId, 't', [0, 1, 2, 3], BigInt(offset)));
  assert.deepEqual(
    r.topics[0]!.partitions.map((p) => p.errorCode),
    [0, 0, 0, 0],
  );
}

for (const deleteRetentionMs of [0, 86_400_000]) {
  test(`brook's log cleaner compacts __consumer_offsets: one record per key stays, and a deleted group's tombstones ${deleteRetentionMs === 0 ? 'go once delete.retention.ms has passed' : 'stay within delete.retention.ms'}`, async (t) => {
    const broker = await startBroker({
      offsetsTopicNumPartitions: 1,
      offsetsTopicSegmentBytes: 2048,
      cleanerBackoffMs: 20,
      cleanerMinCleanableRatio: 0.01,
      cleanerDeleteRetentionMs: deleteRetentionMs,
    });
    const c = await WireClient.connect(broker.port);
    t.after(async () => {
      c.close();
      await broker.close();
    });
    await createTopic(c, 't', 4);
    for (let i = 1; i <= 20; i++) await commitFour(c, 'gone', i);
    for (let i = 1; i <= 30; i++) await commitFour(c, 'kept', i);
    const deleted = await c.request(DeleteGroupsRequest, DeleteGroupsResponse, 2, { groupsNames: ['gone'] });
    assert.equal(deleted.results[0]!.errorCode, 0);
    // Later commits roll the tombstones out of the active segment, which is never cleaned.
    for (let i = 31; i <= 60; i++) await commitFour(c, 'kept', i);
    const written = (await offsetCommitRecords(c, 0)).length;
    assert.equal(written, 20 * 4 + 60 * 4 + 4);

    await until(async () => {
      const records = await offsetCommitRecords(c, 0);
      const tombstones = records.filter((r) => r.group === 'gone');
      const keptOnce = records.filter((r) => r.group === 'kept' && r.value !== null && r.value.offset < 50n).length <= 4;
      return keptOnce && (deleteRetentionMs === 0 ? tombstones.length === 0 : tombstones.length === 4 && tombstones.every((r) => r.value === null));
    }, 'the cleaner compacted the partition');

    const records = await offsetCommitRecords(c, 0);
    assert.ok(records.length < written / 2, `${records.length} of ${written} records left`);
    const latest = lastByKey(records);
    for (const p of [0, 1, 2, 3]) assert.equal(latest.get(`kept/t/${p}`)?.value?.offset, 60n);
    await broker.restart();
    const again = await WireClient.connect(broker.port);
    t.after(() => again.close());
    const fetched = await again.request(OffsetFetchRequest, OffsetFetchResponse, 8, {
      groupId: '',
      topics: null,
      groups: [
        { groupId: 'kept', memberId: null, memberEpoch: -1, topics: null },
        { groupId: 'gone', memberId: null, memberEpoch: -1, topics: null },
      ],
      requireStable: false,
    });
    assert.deepEqual(
      fetched.groups.map((g) => [g.groupId, g.topics.flatMap((topic) => topic.partitions.map((p) => Number(p.committedOffset)))]),
      [
        ['kept', [60, 60, 60, 60]],
        ['gone', []],
      ],
      'after a restart, read back from the compacted topic',
    );
  });
}
