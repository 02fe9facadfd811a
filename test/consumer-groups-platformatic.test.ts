/**
 * The consumer group protocol (KIP-848) with a real client: @platformatic/kafka consumers with
 * `groupProtocol: 'consumer'` share a topic's partitions as members come and go, and every record
 * is read once, from the offsets the group committed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../src/protocol/messages/consumer-group-describe.js';
import { groupTestBroker } from './helpers/group-broker.js';
import { evenProducer, recordingReader, type Reader, type Seen } from './helpers/platformatic-group.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';

const TOPIC = 'kip848-orders';
const GROUP = 'kip848-readers';
const PARTITIONS = 6;

const env = groupTestBroker(TOPIC, PARTITIONS);

/** A member of the group that records every value it reads and commits each before reading on. */
const reader = (name: string, seen: Seen, onRead: () => void): Promise<Reader> => recordingReader(env.broker.bootstrap, GROUP, TOPIC, name, seen, onRead);

async function describe(): Promise<ConsumerGroupDescribeResponse['groups'][number]> {
  const response = await env.wire.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, {
    groupIds: [GROUP],
    includeAuthorizedOperations: false,
  });
  return response.groups[0]!;
}

/** Until the group is Stable with these members, each client reading what the broker assigned it. */
async function settled(readers: readonly Reader[]): Promise<number[]> {
  for (;;) {
    const g = await describe();
    const assigned = new Map(g.members.map((m) => [m.clientId, String(m.assignment.topicPartitions.flatMap((t) => t.partitions).sort())]));
    const counts = g.members.map((m) => m.assignment.topicPartitions.reduce((n, t) => n + t.partitions.length, 0));
    const agreed = readers.every((r) => assigned.get(r.name) === String(r.partitions()));
    if (g.groupState === 'Stable' && g.members.length === readers.length && counts.reduce((a, b) => a + b, 0) === PARTITIONS && agreed) return counts.sort();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test(
  '@platformatic/kafka consumer protocol: six partitions shared by three, then four, then three members, each record read once',
  { timeout: 120_000 },
  async () => {
    const producer = evenProducer(env.broker.bootstrap, 'kip848-producer', TOPIC, PARTITIONS);
    const seen: Seen = new Map();
    let waiting: { count: number; resolve: () => void } | undefined;
    const onRead = (): void => {
      if (waiting !== undefined && seen.size >= waiting.count) waiting.resolve();
    };
    const readUpTo = (count: number): Promise<void> =>
      seen.size >= count ? Promise.resolve() : new Promise<void>((resolve) => (waiting = { count, resolve }));
    const readers: Reader[] = [];
    try {
      for (const name of ['a', 'b', 'c']) readers.push(await reader(name, seen, onRead));
      assert.deepEqual(await settled(readers), [2, 2, 2]);
      await producer.produce(120);
      await readUpTo(producer.produced());

      readers.push(await reader('d', seen, onRead));
      assert.deepEqual(await settled(readers), [1, 1, 2, 2]);
      await producer.produce(120);
      await readUpTo(producer.produced());

      await readers.shift()!.close();
      assert.deepEqual(await settled(readers), [2, 2, 2]);
      await producer.produce(120);
      await readUpTo(producer.produced());
    } finally {
      for (const r of readers) await r.close();
      await producer.close();
    }
    const produced = producer.produced();
    assert.equal(seen.size, produced);
    // No record is read by two members: a partition is one member's at a time, and its next owner starts from the committed offset.
    // (A member given more partitions may read again what it had fetched but not yet committed: @platformatic/kafka then
    // takes the committed offsets of all its partitions anew. That is the client's at-least-once window, not the group's.)
    const byTwo = [...seen].filter(([, by]) => new Set(by).size > 1);
    assert.deepEqual(byTwo, [], 'no record read by two members');
    // Every partition's committed offset is its end: what was read was committed.
    const fetched = await env.wire.request(OffsetFetchRequest, OffsetFetchResponse, 8, {
      groupId: '',
      topics: null,
      groups: [{ groupId: GROUP, memberId: null, memberEpoch: -1, topics: [{ name: TOPIC, partitionIndexes: [0, 1, 2, 3, 4, 5] }] }],
      requireStable: false,
    });
    assert.deepEqual(
      fetched.groups[0]!.topics[0]!.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode]),
      Array.from({ length: PARTITIONS }, (_, p) => [p, BigInt(produced / PARTITIONS), 0]),
    );
    // Once every member left, the group is Empty.
    assert.equal((await describe()).groupState, 'Empty');
  },
);
