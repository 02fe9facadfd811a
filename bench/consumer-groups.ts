/**
 * The consumer group protocol's cost (KIP-848): a steady heartbeat (nothing changes, nothing is
 * written) in a group of 1,000 members against one in a group of one; and the time for ten
 * members to join one after another and reconcile until the group is Stable, against one member's.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  type ConsumerGroupHeartbeatRequestTopicPartitions,
} from '../src/protocol/messages/consumer-group-heartbeat.js';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';
import { alternating, lowest } from './measure.js';
import { compared, fmt, type Row } from './table.js';

const TOPIC = 'consumer-groups';
const PARTITIONS = 60;
const HEARTBEAT = 68;

interface Member {
  readonly memberId: string;
  epoch: number;
  owned: ConsumerGroupHeartbeatRequestTopicPartitions[];
}

class Target {
  private groups = 0;

  private constructor(
    private readonly serve: ServeProcess,
    private readonly client: WireClient,
  ) {}

  static async start(): Promise<Target> {
    const serve = await startServe(['--log-level', 'warn']);
    const client = await WireClient.connect(serve.port);
    await client.request(CreateTopicsRequest, CreateTopicsResponse, 5, {
      topics: [{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 5000,
      validateOnly: false,
    });
    return new Target(serve, client);
  }

  newGroup(): string {
    return `group-${this.groups++}`;
  }

  /** One full heartbeat: the member says what it owns and takes what it is given. */
  async beat(groupId: string, m: Member): Promise<void> {
    // A heartbeat that changes the group waits for its write: on a busy disk, longer than a request's usual wait.
    this.client.sendRaw(
      this.client.frame(ConsumerGroupHeartbeatRequest, 1, {
        groupId,
        memberId: m.memberId,
        memberEpoch: m.epoch,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 60_000,
        subscribedTopicNames: [TOPIC],
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: m.owned,
      }),
    );
    const r = this.client.decode((await this.client.nextFrame(120_000))!, ConsumerGroupHeartbeatResponse, HEARTBEAT, 1).body;
    if (r.errorCode !== 0) throw new Error(`heartbeat refused: ${r.errorCode} ${r.errorMessage}`);
    m.epoch = r.memberEpoch;
    if (r.assignment !== null) m.owned = r.assignment.topicPartitions;
  }

  /** A new member joins. */
  async join(groupId: string, members: Member[]): Promise<void> {
    const m: Member = { memberId: randomUUID(), epoch: 0, owned: [] };
    members.push(m);
    await this.beat(groupId, m);
  }

  /** Each member heartbeats in turn until the group settles: owners revoke, then the others take what was released. */
  async settle(groupId: string, members: readonly Member[]): Promise<void> {
    for (let round = 0; round < 3; round++) for (const m of members) await this.beat(groupId, m);
  }

  /** `count` members join one after another, the group settling after each; ms. */
  async rebalance(groupId: string, count: number): Promise<{ ms: number; members: Member[] }> {
    const start = performance.now();
    const members: Member[] = [];
    for (let i = 0; i < count; i++) {
      await this.join(groupId, members);
      await this.settle(groupId, members);
    }
    return { ms: performance.now() - start, members };
  }

  /** µs of each of `count` heartbeats from the members in turn, with nothing to change. */
  async steady(groupId: string, members: readonly Member[], count: number): Promise<number> {
    const latencies: number[] = [];
    for (let i = 0; i < count; i++) {
      const start = performance.now();
      await this.beat(groupId, members[i % members.length]!);
      latencies.push((performance.now() - start) * 1000);
    }
    latencies.sort((a, b) => a - b);
    return latencies[Math.floor(latencies.length / 2)]!;
  }

  async stop(): Promise<void> {
    this.client.close();
    await this.serve.stop();
    await rm(this.serve.dataDir, { recursive: true, force: true });
  }
}

export async function consumerGroupBench(smoke: boolean): Promise<Row[]> {
  const large = smoke ? 50 : 1_000;
  const beats = smoke ? 200 : 5_000;
  const target = await Target.start();
  try {
    // The large group joins once: its members then heartbeat in turn.
    const big = target.newGroup();
    const members: Member[] = [];
    for (let i = 0; i < large; i++) await target.join(big, members);
    await target.settle(big, members);
    const solo = target.newGroup();
    const single = (await target.rebalance(solo, 1)).members;
    const [one, ten, bigBeats, oneBeats] = await alternating(smoke ? 1 : 3, [
      async () => (await target.rebalance(target.newGroup(), 1)).ms,
      async () => (await target.rebalance(target.newGroup(), 10)).ms,
      () => target.steady(big, members, beats),
      () => target.steady(solo, single, beats),
    ]);
    return [
      compared('consumer group: 10 members join and settle, one after another (ms)', lowest(ten!), lowest(one!), 'one member', 1),
      compared(`ConsumerGroupHeartbeat p50, ${fmt(large)} members (µs)`, lowest(bigBeats!), lowest(oneBeats!), 'one member'),
    ];
  } finally {
    await target.stop();
  }
}
