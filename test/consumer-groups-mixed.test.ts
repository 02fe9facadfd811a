/**
 * Classic and consumer-protocol members in one group with real clients: kafkajs members (the
 * classic protocol) start the group; an @platformatic/kafka member with `groupProtocol: 'consumer'`
 * joins and the group becomes a consumer group (the online upgrade); more of both kinds join and
 * leave; when the last consumer-protocol member leaves, the group is a classic group again (the
 * downgrade). Every record is read once, by one member, and committed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Consumer as KafkajsConsumer } from 'kafkajs';
import { assignedPartitions } from '../src/groups/consumer-protocol.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../src/protocol/messages/consumer-group-describe.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { ListGroupsRequest, ListGroupsResponse } from '../src/protocol/messages/list-groups.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import { kafkajs } from './helpers/kafkajs.js';
import { groupTestBroker } from './helpers/group-broker.js';
import { evenProducer, recordingReader, type Reader, type Seen } from './helpers/platformatic-group.js';
import { until } from './helpers/until.js';

const TOPIC = 'mixed-orders';
const GROUP = 'mixed-readers';
const PARTITIONS = 6;

const env = groupTestBroker(TOPIC, PARTITIONS);

/** A classic member (kafkajs): it commits each record before reading on. */
async function classicReader(name: string, seen: Seen, onRead: () => void): Promise<Reader> {
  const consumer: KafkajsConsumer = kafkajs(env.broker.bootstrap, name).consumer({
    groupId: GROUP,
    heartbeatInterval: 100,
    sessionTimeout: 10_000,
    rebalanceTimeout: 20_000,
    maxWaitTimeInMs: 50,
  });
  let assigned: number[] = [];
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    assigned = [...(payload.memberAssignment[TOPIC] ?? [])].sort();
  });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      const value = message.value!.toString();
      seen.set(value, [...(seen.get(value) ?? []), name]);
      await consumer.commitOffsets([{ topic: TOPIC, partition, offset: String(Number(message.offset) + 1) }]);
      onRead();
    },
  });
  return { name, partitions: () => assigned, close: () => consumer.disconnect() };
}

/** A consumer-protocol member (@platformatic/kafka): it commits each record before reading on. */
const consumerReader = (name: string, seen: Seen, onRead: () => void): Promise<Reader> =>
  recordingReader(env.broker.bootstrap, GROUP, TOPIC, name, seen, onRead);

async function groupType(): Promise<string | undefined> {
  const listed = await env.wire.request(ListGroupsRequest, ListGroupsResponse, 5, { statesFilter: [], typesFilter: [] });
  return listed.groups.find((g) => g.groupId === GROUP)?.groupType;
}

/** The group's state and each member's assignment (by client id), as the broker has them, of whichever type the group is. */
async function brokerView(type: string): Promise<{ state: string; assigned: Map<string, number[]> }> {
  if (type === 'consumer') {
    const r = await env.wire.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, { groupIds: [GROUP], includeAuthorizedOperations: false });
    const g = r.groups[0]!;
    return { state: g.groupState, assigned: new Map(g.members.map((m) => [m.clientId, m.assignment.topicPartitions.flatMap((t) => t.partitions).sort()])) };
  }
  const r = await env.wire.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: [GROUP], includeAuthorizedOperations: false });
  const g = r.groups[0]!;
  const partitions = (assignment: Buffer): number[] => (assignedPartitions(assignment) ?? []).flatMap((t) => t.partitions).sort();
  return { state: g.groupState, assigned: new Map(g.members.map((m) => [m.clientId, partitions(m.memberAssignment)])) };
}

/** Until the group is of `type`, Stable with these members, every partition assigned once, and each client reading what the broker gave it. */
async function settled(type: 'classic' | 'consumer', readers: readonly Reader[]): Promise<void> {
  await until(
    async () => {
      if ((await groupType()) !== type) return false;
      const view = await brokerView(type);
      const all = [...view.assigned.values()].flat().sort((a, b) => a - b);
      return (
        view.state === 'Stable' &&
        view.assigned.size === readers.length &&
        String(all) === String([...Array(PARTITIONS).keys()]) &&
        readers.every((r) => String(view.assigned.get(r.name)) === String(r.partitions()))
      );
    },
    `the group is a Stable ${type} group of ${readers.map((r) => r.name).join(', ')}`,
    60_000,
  );
}

test(
  'kafkajs (classic) and @platformatic/kafka (consumer protocol) members in one group: upgrade, joins and leaves, downgrade; each record read once',
  { timeout: 240_000 },
  async () => {
    const producer = evenProducer(env.broker.bootstrap, 'mixed-producer', TOPIC, PARTITIONS);
    const seen: Seen = new Map();
    const onRead = (): void => {};
    /** Produces a round of records and waits until all were read and committed: a change of members then finds nothing in flight. */
    const round = async (n: number): Promise<void> => {
      await producer.produce(n);
      const produced = producer.produced();
      await until(() => seen.size >= produced, `${produced} records read`, 60_000);
      await until(async () => (await committed()).every((offset) => offset === BigInt(produced / PARTITIONS)), 'every record committed', 60_000);
    };
    const readers: Reader[] = [];
    const leave = async (name: string): Promise<void> => {
      const i = readers.findIndex((r) => r.name === name);
      await readers.splice(i, 1)[0]!.close();
    };
    try {
      readers.push(await classicReader('classic-1', seen, onRead), await classicReader('classic-2', seen, onRead));
      await settled('classic', readers);
      await round(60);

      // A consumer-protocol member joins: the upgrade.
      readers.push(await consumerReader('consumer-1', seen, onRead));
      await settled('consumer', readers);
      await round(60);

      // One more of each kind.
      readers.push(await consumerReader('consumer-2', seen, onRead), await classicReader('classic-3', seen, onRead));
      await settled('consumer', readers);
      await round(60);

      // One of each kind leaves.
      await leave('classic-1');
      await leave('consumer-1');
      await settled('consumer', readers);
      await round(60);

      // The last consumer-protocol member leaves: the downgrade.
      await leave('consumer-2');
      await settled('classic', readers);
      await round(60);
    } finally {
      for (const r of readers) await r.close();
      await producer.close();
    }
    assert.equal(seen.size, producer.produced());
    const readTwice = [...seen].filter(([, by]) => by.length > 1);
    assert.deepEqual(readTwice, [], 'no record read twice');
  },
);

/** The group's committed offset of each partition. */
async function committed(): Promise<bigint[]> {
  const fetched = await env.wire.request(OffsetFetchRequest, OffsetFetchResponse, 8, {
    groupId: '',
    topics: null,
    groups: [{ groupId: GROUP, memberId: null, memberEpoch: -1, topics: [{ name: TOPIC, partitionIndexes: [...Array(PARTITIONS).keys()] }] }],
    requireStable: false,
  });
  return fetched.groups[0]!.topics[0]!.partitions.map((p) => p.committedOffset);
}
