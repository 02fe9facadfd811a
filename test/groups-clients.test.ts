import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Consumer as PlatformaticConsumer, MessagesStreamModes, stringDeserializers } from './helpers/platformatic.js';
import type { Consumer, Kafka } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { consumeAll, kafkajs, type Consumed } from './helpers/kafkajs.js';

let broker: Broker;
before(async () => {
  broker = await startBroker({ port: 0, partitions: 4 });
});
after(async () => {
  await broker.close();
});

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function createTopic(kafka: Kafka, topic: string, numPartitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions }] });
  await admin.disconnect();
}

/** Sends `prefix`0 … `prefix`count-1 round-robin over the partitions; returns the values. */
async function produce(kafka: Kafka, topic: string, prefix: string, count: number, partitions: number): Promise<string[]> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const values = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  await producer.send({ topic, acks: -1, messages: values.map((value, i) => ({ partition: i % partitions, value })) });
  await producer.disconnect();
  return values;
}

interface GroupMember {
  readonly consumer: Consumer;
  /** Partitions of the topic in the member's latest assignment. */
  assigned: number[];
  readonly seen: Consumed[];
}

async function startMember(kafka: Kafka, groupId: string, topic: string): Promise<GroupMember> {
  const consumer = kafka.consumer({ groupId, heartbeatInterval: 200, maxWaitTimeInMs: 100 });
  const member: GroupMember = { consumer, assigned: [], seen: [] };
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    member.assigned = [...(payload.memberAssignment[topic] ?? [])].sort();
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      member.seen.push({ partition, offset: Number(message.offset), value: message.value?.toString() ?? '' });
    },
  });
  return member;
}

const NON_EMPTY_GROUP = 68;

const sortedValues = (seen: readonly Consumed[]) => seen.map((m) => m.value).sort();

test('kafkajs: two members split a 4-partition topic; when one leaves, the other takes every partition', async () => {
  const kafka = kafkajs(broker.bootstrap);
  await createTopic(kafka, 'split', 4);
  const a = await startMember(kafka, 'splitters', 'split');
  const b = await startMember(kafka, 'splitters', 'split');
  await until(() => a.assigned.length === 2 && b.assigned.length === 2, 'both members hold two partitions');
  assert.deepEqual([...a.assigned, ...b.assigned].sort(), [0, 1, 2, 3]);

  const firstValues = await produce(kafka, 'split', 'first-', 40, 4);
  await until(() => a.seen.length + b.seen.length >= 40, 'the 40 messages are consumed');
  assert.deepEqual(sortedValues([...a.seen, ...b.seen]), [...firstValues].sort());
  for (const member of [a, b])
    assert.ok(
      member.seen.every((m) => member.assigned.includes(m.partition)),
      'each member reads only its own partitions',
    );

  await a.consumer.disconnect();
  await until(() => b.assigned.length === 4, 'the remaining member holds all four partitions');
  b.seen.length = 0;
  const secondValues = await produce(kafka, 'split', 'second-', 40, 4);
  await until(() => b.seen.length >= 40, 'the remaining member consumes the next 40');
  assert.deepEqual(sortedValues(b.seen), [...secondValues].sort());
  await b.consumer.disconnect();
});

test('kafkajs: committed offsets survive a broker restart and the group resumes without re-reading or skipping', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-groups-restart-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startBroker({ port: 0, dataDir, partitions: 2 });
  try {
    const kafka = kafkajs(first.bootstrap);
    await createTopic(kafka, 'resume', 2);
    const before = await produce(kafka, 'resume', 'before-', 20, 2);
    assert.deepEqual(sortedValues(await consumeAll(kafka, 'resume', 'resumers', 20)), [...before].sort());
  } finally {
    await first.close();
  }

  const second = await startBroker({ port: 0, dataDir, partitions: 2 });
  try {
    const kafka = kafkajs(second.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    const [committed] = await admin.fetchOffsets({ groupId: 'resumers', topics: ['resume'] });
    assert.deepEqual(committed?.partitions.map((p) => [p.partition, p.offset]).sort(), [
      [0, '10'],
      [1, '10'],
    ]);
    await admin.disconnect();

    const after = await produce(kafka, 'resume', 'after-', 10, 2);
    const resumed = await consumeAll(kafka, 'resume', 'resumers', 10);
    assert.deepEqual(sortedValues(resumed), [...after].sort());
    assert.deepEqual(
      resumed.filter((m) => m.partition === 0).map((m) => m.offset),
      [10, 11, 12, 13, 14],
    );
  } finally {
    await second.close();
  }
});

test("kafkajs: a deleted topic's committed offsets are gone, after a restart too, so the group reads a topic made again under its name from the start", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-groups-deleted-topic-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startBroker({ port: 0, dataDir });
  try {
    const kafka = kafkajs(first.bootstrap);
    await createTopic(kafka, 'reborn', 1);
    await produce(kafka, 'reborn', 'old-', 10, 1);
    assert.equal((await consumeAll(kafka, 'reborn', 'rereaders', 10)).length, 10);
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: ['reborn'] });
    await admin.disconnect();
  } finally {
    await first.close();
  }

  const second = await startBroker({ port: 0, dataDir });
  try {
    const kafka = kafkajs(second.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    assert.deepEqual(await admin.fetchOffsets({ groupId: 'rereaders' }), []);
    await admin.disconnect();
    await createTopic(kafka, 'reborn', 1);
    const values = await produce(kafka, 'reborn', 'new-', 5, 1);
    const read = await consumeAll(kafka, 'reborn', 'rereaders', 5, 10_000);
    assert.deepEqual(
      read.map((m) => [m.offset, m.value]),
      values.map((v, i) => [i, v]),
    );
  } finally {
    await second.close();
  }
});

test('kafkajs admin: list, describe, fetch offsets, and delete a group only once it is empty', async () => {
  const kafka = kafkajs(broker.bootstrap);
  await createTopic(kafka, 'admin-groups', 2);
  await produce(kafka, 'admin-groups', 'v', 4, 2);
  const member = await startMember(kafka, 'watched', 'admin-groups');
  await until(() => member.seen.length === 4, 'the member has read all four messages');

  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups: listed } = await admin.listGroups();
    assert.ok(listed.some((g) => g.groupId === 'watched' && g.protocolType === 'consumer'));
    const { groups: described } = await admin.describeGroups(['watched', 'never-seen']);
    assert.equal(described[0]?.state, 'Stable');
    assert.equal(described[0]?.protocol, 'RoundRobinAssigner');
    assert.equal(described[0]?.members.length, 1);
    assert.equal(described[1]?.state, 'Dead');
    await assert.rejects(admin.deleteGroups(['watched']), (err: { groups?: { errorCode: number }[] }) => err.groups?.[0]?.errorCode === NON_EMPTY_GROUP);

    await member.consumer.disconnect();
    const [offsets] = await admin.fetchOffsets({ groupId: 'watched', topics: ['admin-groups'] });
    assert.deepEqual(
      offsets?.partitions.map((p) => p.offset),
      ['2', '2'],
    );
    const { groups: afterLeave } = await admin.describeGroups(['watched']);
    assert.equal(afterLeave[0]?.state, 'Empty');

    const [deleted] = await admin.deleteGroups(['watched']);
    assert.equal(deleted?.errorCode, 0);
    const [gone] = await admin.fetchOffsets({ groupId: 'watched', topics: ['admin-groups'] });
    assert.deepEqual(
      gone?.partitions.map((p) => p.offset),
      ['-1', '-1'],
    );
  } finally {
    await admin.disconnect();
  }
});

test('@platformatic/kafka: a group consumer reads a topic to the end', async () => {
  const kafka = kafkajs(broker.bootstrap);
  await createTopic(kafka, 'plt-group', 3);
  const values = await produce(kafka, 'plt-group', 'p', 30, 3);
  const consumer = new PlatformaticConsumer({
    groupId: 'plt-readers',
    clientId: 'plt-group-test',
    bootstrapBrokers: [broker.bootstrap],
    deserializers: stringDeserializers,
    maxWaitTime: 100,
  });
  const seen: string[] = [];
  try {
    const stream = await consumer.consume({
      topics: ['plt-group'],
      mode: MessagesStreamModes.EARLIEST,
      autocommit: true,
      sessionTimeout: 10_000,
      heartbeatInterval: 500,
    });
    for await (const message of stream) {
      seen.push(message.value);
      if (seen.length === values.length) break;
    }
  } finally {
    await consumer.close(true);
  }
  assert.deepEqual(seen.sort(), [...values].sort());
});
