/**
 * Groups across `kill -9` of `brook serve`: a consumer-protocol group of three @platformatic/kafka
 * consumers sharing six partitions and a kafkajs classic group, each committing every record it
 * reads, are killed with the broker at random points; after each restart the groups are there as
 * they were (members and epochs, the classic group's generation), and the next consumers go on
 * from the committed offsets, reading nothing twice but what was read after the last commit
 * answered before the kill.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Consumer as KafkajsConsumer } from 'kafkajs';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../src/protocol/messages/consumer-group-describe.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { HeartbeatRequest, HeartbeatResponse } from '../src/protocol/messages/heartbeat.js';
import { latest, type ClassicValue } from './helpers/group-records.js';
import { kafkajs } from './helpers/kafkajs.js';
import { Producer, stringSerializers } from './helpers/platformatic.js';
import { consumerMember } from './helpers/platformatic-group.js';
import { seeded } from './helpers/seeded.js';
import { startServe, type ServeProcess } from './helpers/serve-process.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

const KIP848_TOPIC = 'crash-kip848';
const KIP848_GROUP = 'crash-kip848-readers';
const CLASSIC_TOPIC = 'crash-classic';
const CLASSIC_GROUP = 'crash-classic-readers';
const PER_PARTITION = 40;
const ROUNDS = 3;
/** Short sessions, so that the members a restart brings back and no client speaks for go soon. */
const SERVE_ARGS = [
  '--consumer-group-session-timeout-ms',
  '3000',
  '--consumer-group-min-session-timeout-ms',
  '1000',
  '--consumer-group-heartbeat-interval-ms',
  '100',
  '--consumer-group-min-heartbeat-interval-ms',
  '50',
];

/** One read of a record: in which round, and whether its commit was answered before that round's kill. */
interface Read {
  readonly round: number;
  committed: boolean;
}

interface Running {
  close(): Promise<void>;
}

/** Gives up on a client's close after a while: one of a broker that was killed may wait on it for long. */
async function closing(running: readonly Running[]): Promise<void> {
  await Promise.all(running.map((r) => Promise.race([r.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 3000))])));
}

test(
  'brook serve SIGKILLed at random points under a consumer-protocol group and a classic group: the groups come back, and reading goes on from the committed offsets',
  { timeout: 300_000 },
  async (t) => {
    const random = seeded(48);
    let serve: ServeProcess = await startServe(SERVE_ARGS);
    t.after(() => serve.stop('SIGKILL'));
    let wire = await WireClient.connect(serve.port);
    await createTopic(wire, KIP848_TOPIC, 6);
    await createTopic(wire, CLASSIC_TOPIC, 3);
    /** "topic/partition/offset" → each read of it. */
    const reads = new Map<string, Read[]>();
    let produced = 0;

    const produce = async (): Promise<void> => {
      const producer = new Producer({ clientId: 'crash-producer', bootstrapBrokers: [serve.bootstrap], serializers: stringSerializers });
      const messages = [
        ...Array.from({ length: 6 * PER_PARTITION }, (_, i) => ({ topic: KIP848_TOPIC, value: `v${i}`, partition: i % 6 })),
        ...Array.from({ length: 3 * PER_PARTITION }, (_, i) => ({ topic: CLASSIC_TOPIC, value: `v${i}`, partition: i % 3 })),
      ];
      await producer.send({ messages });
      await producer.close();
      produced += messages.length;
    };

    /** Starts the round's consumers, each committing every record it reads before reading on. */
    const consumers = async (round: number): Promise<Running[]> => {
      const running: Running[] = [];
      const onRead = (topic: string, partition: number, offset: bigint): Read => {
        const read: Read = { round, committed: false };
        const key = `${topic}/${partition}/${offset}`;
        reads.set(key, [...(reads.get(key) ?? []), read]);
        return read;
      };
      for (const name of ['a', 'b', 'c']) {
        const { consumer, stream } = await consumerMember(serve.bootstrap, KIP848_GROUP, `${name}-${round}`, KIP848_TOPIC);
        const done = (async () => {
          for await (const message of stream) {
            const read = onRead(message.topic, message.partition, message.offset);
            await message.commit();
            read.committed = true;
          }
        })().catch(() => {});
        running.push({
          async close() {
            await stream.close().catch(() => {});
            await done;
            await consumer.close(true);
          },
        });
      }
      const classic: KafkajsConsumer = kafkajs(serve.bootstrap, `classic-${round}`).consumer({
        groupId: CLASSIC_GROUP,
        maxWaitTimeInMs: 50,
        sessionTimeout: 6000,
        rebalanceTimeout: 10_000,
        // A consumer whose broker was killed gives up rather than starting over for ever.
        retry: { retries: 3, restartOnFailure: async () => false },
      });
      await classic.connect();
      await classic.subscribe({ topic: CLASSIC_TOPIC, fromBeginning: true });
      await classic.run({
        autoCommit: false,
        eachMessage: async ({ topic, partition, message }) => {
          const read = onRead(topic, partition, BigInt(message.offset));
          await classic.commitOffsets([{ topic, partition, offset: String(BigInt(message.offset) + 1n) }]);
          read.committed = true;
        },
      });
      running.push({ close: () => classic.disconnect() });
      return running;
    };

    const describeConsumerGroup = async () =>
      (await wire.request(ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 1, { groupIds: [KIP848_GROUP], includeAuthorizedOperations: false }))
        .groups[0]!;
    const describeClassic = async () =>
      (await wire.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: [CLASSIC_GROUP], includeAuthorizedOperations: false })).groups[0]!;
    const settled = async (members: number): Promise<void> =>
      until(async () => {
        const g = await describeConsumerGroup();
        const assigned = g.members.reduce((n, m) => n + m.assignment.topicPartitions.reduce((k, tp) => k + tp.partitions.length, 0), 0);
        const classic = await describeClassic();
        return g.groupState === 'Stable' && g.members.length === members && assigned === 6 && classic.groupState === 'Stable' && classic.members.length === 1;
      }, 'both groups are Stable with the round members only');

    for (let round = 0; round < ROUNDS; round++) {
      await produce();
      const running = await consumers(round);
      await settled(3);
      // What a restart must bring back: the consumer group's members at their epochs, the classic group's generation.
      const before = await describeConsumerGroup();
      const record = (await latest(wire, CLASSIC_GROUP)).get('2/')!.value as ClassicValue;
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 800)));
      await serve.stop('SIGKILL');
      wire.close();
      await closing(running);

      serve = await startServe(SERVE_ARGS, serve.dataDir);
      wire = await WireClient.connect(serve.port);
      const after = await describeConsumerGroup();
      const members = (g: typeof before) =>
        g.members
          .map((m) => [m.memberId, m.memberEpoch, m.assignment.topicPartitions.flatMap((tp) => tp.partitions.map((p) => `${tp.topicId}/${p}`)).sort()])
          .sort();
      // The members heartbeat on between the look and the kill, and their group may move on: a change then is written
      // before it is answered, so the group comes back as it was looked at, or later, never earlier.
      const epochs = (g: typeof before) => [g.groupEpoch, g.assignmentEpoch, ...g.members.map((m) => m.memberEpoch)];
      assert.deepEqual(
        after.members.map((m) => m.memberId).sort(),
        before.members.map((m) => m.memberId).sort(),
        `round ${round}: the consumer group's members`,
      );
      const byId = new Map(before.members.map((m) => [m.memberId, m]));
      const moved = `round ${round}: ${epochs(after)} after ${epochs(before)}`;
      assert.ok(after.groupEpoch >= before.groupEpoch && after.assignmentEpoch >= before.assignmentEpoch, moved);
      for (const m of after.members) assert.ok(m.memberEpoch >= byId.get(m.memberId)!.memberEpoch, moved);
      if (String(epochs(after)) === String(epochs(before))) assert.deepEqual(members(after), members(before), `round ${round}: the consumer group`);
      const classic = await describeClassic();
      assert.deepEqual(
        [classic.groupState, classic.members.map((m) => m.memberId)],
        ['Stable', record.members.map((m) => m.memberId)],
        `round ${round}: the classic group`,
      );
      const beat = await wire.request(HeartbeatRequest, HeartbeatResponse, 4, {
        groupId: CLASSIC_GROUP,
        generationId: record.generation,
        memberId: record.leader!,
        groupInstanceId: null,
      });
      assert.equal(beat.errorCode, ErrorCode.NONE, `round ${round}: the classic group's generation ${record.generation}`);
    }

    // The last consumers read what is left, from the committed offsets, once the members no client speaks for are gone.
    const running = await consumers(ROUNDS);
    t.after(() => closing(running));
    await until(() => reads.size === produced, `every record read (${reads.size} of ${produced})`, 60_000);
    await closing(running);
    for (const [key, list] of reads) {
      // A record is read again after a kill only if its commit was not answered before the kill. (Within a round the
      // client may read again what it read but had not committed when its partitions changed: its own window.)
      const rounds = [...new Set(list.map((r) => r.round))];
      for (const round of rounds.slice(0, -1)) {
        assert.ok(!list.some((r) => r.round === round && r.committed), `${key} read again after round ${round}, which committed it: ${JSON.stringify(list)}`);
      }
    }
  },
);
