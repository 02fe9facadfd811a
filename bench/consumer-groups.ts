/**
 * The group protocols' costs, side by side in one run. The consumer protocol (KIP-848): a steady
 * heartbeat (nothing changes, nothing is written) in a group of 1,000 members against one in a
 * group of one; and the time for ten members to join one after another and reconcile until the
 * group is Stable, against one member's. The classic protocol the same: Heartbeat in a group of
 * 1,000 members against one of one, and ten members joining one after another, each join a
 * rebalance (the others learn of it from a Heartbeat and rejoin, then all SyncGroup with the
 * leader's assignment), against one member's. Each protocol's rows are then set against each other.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import type { MessageCodec } from '../src/protocol/messages/codec.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { HeartbeatRequest, HeartbeatResponse } from '../src/protocol/messages/heartbeat.js';
import { JoinGroupRequest, JoinGroupResponse } from '../src/protocol/messages/join-group.js';
import { SyncGroupRequest, SyncGroupResponse } from '../src/protocol/messages/sync-group.js';
import {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  type ConsumerGroupHeartbeatRequestTopicPartitions,
} from '../src/protocol/messages/consumer-group-heartbeat.js';
import { assignment, subscription } from '../test/helpers/consumer-protocol-bytes.js';
import { startServe, type ServeProcess } from '../test/helpers/serve-process.js';
import { WireClient } from '../test/helpers/wire-client.js';
import { alternating, lowest, median, timed } from './measure.js';
import { compared, fmt, type Row } from './table.js';

const TOPIC = 'consumer-groups';
const PARTITIONS = 60;
const HEARTBEAT = 68;
/** The classic APIs' newest versions, as a current client sends them. */
const JOIN_VERSION = 9;
const SYNC_VERSION = 5;
const CLASSIC_HEARTBEAT_VERSION = 4;
/** Long enough that members of the large classic group, which heartbeat only in their turn, stay in it across the run. */
const CLASSIC_SESSION_MS = 600_000;

/**
 * Classic members per connection, where a client would have one each: a member waits in JoinGroup
 * and SyncGroup for the others, and a connection reads no more requests while 100 answers wait
 * (`maxQueuedResponsesPerConnection`).
 */
const MEMBERS_PER_CONNECTION = 50;

interface ClassicMember {
  memberId: string;
  generation: number;
  readonly client: WireClient;
}

/** Every `count`th partition from `index`, as the leader's assignor would give. */
const share = (index: number, count: number): number[] => Array.from({ length: PARTITIONS }, (_, p) => p).filter((p) => p % count === index);

interface Member {
  readonly memberId: string;
  epoch: number;
  owned: ConsumerGroupHeartbeatRequestTopicPartitions[];
}

class Target {
  private groups = 0;
  /** The classic members' connections, and each one's last answer awaited: answers come in the order requests were sent. */
  private readonly classicClients: WireClient[] = [];
  private readonly answered = new Map<WireClient, Promise<unknown>>();

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
    for (let i = 0; i < count; i++) await timed(latencies, () => this.beat(groupId, members[i % members.length]!));
    return median(latencies);
  }

  /** A request sent at once on `client`, its answer read after those sent before it there. */
  private call<Req, Res>(client: WireClient, reqCodec: MessageCodec<Req>, resCodec: MessageCodec<Res>, version: number, request: Req): Promise<Res> {
    client.sendRaw(client.frame(reqCodec, version, request));
    const answer = (this.answered.get(client) ?? Promise.resolve()).then(
      async () => client.decode((await client.nextFrame(120_000))!, resCodec, reqCodec.apiKey, version).body,
    );
    this.answered.set(
      client,
      answer.catch(() => {}),
    );
    return answer;
  }

  /**
   * New connections for `count` new classic members, up to MEMBERS_PER_CONNECTION on each: never
   * one a member there already uses, whose Heartbeat's answer would wait behind the newcomers' JoinGroups.
   */
  private async newcomerClients(count: number): Promise<WireClient[]> {
    const clients: WireClient[] = [];
    for (let i = 0; i < count; i += MEMBERS_PER_CONNECTION) {
      const client = await WireClient.connect(this.serve.port);
      // As Kafka's clients set TCP_NODELAY: members sharing a connection send back to back, which Nagle's algorithm would hold up.
      client.socket.setNoDelay(true);
      this.classicClients.push(client);
      clients.push(client);
    }
    return Array.from({ length: count }, (_, i) => clients[Math.floor(i / MEMBERS_PER_CONNECTION)]!);
  }

  private joinRequest(groupId: string, memberId: string): JoinGroupRequest {
    return {
      groupId,
      sessionTimeoutMs: CLASSIC_SESSION_MS,
      rebalanceTimeoutMs: 60_000,
      memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: subscription(TOPIC) }],
      reason: null,
    };
  }

  /**
   * A classic rebalance for `newcomers` new members: each asks for its member id (JoinGroup v4+),
   * joins, and the members there already learn of the rebalance from a Heartbeat and rejoin; once
   * the join phase ends, the leader sends everyone's assignment in its SyncGroup and the others
   * receive theirs.
   */
  async classicJoin(groupId: string, members: ClassicMember[], newcomers: number): Promise<void> {
    const clients = await this.newcomerClients(newcomers);
    const asked = await Promise.all(clients.map((c) => this.call(c, JoinGroupRequest, JoinGroupResponse, JOIN_VERSION, this.joinRequest(groupId, ''))));
    const fresh = asked.map((a, i): ClassicMember => {
      if (a.errorCode !== ErrorCode.MEMBER_ID_REQUIRED) throw new Error(`JoinGroup without a member id: ${a.errorCode}`);
      return { memberId: a.memberId, generation: -1, client: clients[i]! };
    });
    const joining = fresh.map((m) => this.call(m.client, JoinGroupRequest, JoinGroupResponse, JOIN_VERSION, this.joinRequest(groupId, m.memberId)));
    if (members.length > 0) {
      // The rebalance ends when the last member there rejoins: only once every newcomer is in, so that one generation takes them all.
      for (let polls = 0; ; polls++) {
        if (polls > 100_000) throw new Error('the newcomers never all joined');
        const described = await this.client.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, {
          groups: [groupId],
          includeAuthorizedOperations: false,
        });
        if (described.groups[0]!.members.length === members.length + newcomers) break;
      }
    }
    // The members there learn of the rebalance from a Heartbeat, and then rejoin.
    const rejoined = members.map(async (m) => {
      const beat = await this.call(m.client, HeartbeatRequest, HeartbeatResponse, CLASSIC_HEARTBEAT_VERSION, {
        groupId,
        generationId: m.generation,
        memberId: m.memberId,
        groupInstanceId: null,
      });
      if (beat.errorCode !== ErrorCode.REBALANCE_IN_PROGRESS) throw new Error(`Heartbeat during a rebalance: ${beat.errorCode}`);
      return this.call(m.client, JoinGroupRequest, JoinGroupResponse, JOIN_VERSION, this.joinRequest(groupId, m.memberId));
    });
    const joined = await Promise.all([...rejoined, ...joining]);
    members.push(...fresh);
    for (const j of joined) if (j.errorCode !== ErrorCode.NONE) throw new Error(`JoinGroup refused: ${j.errorCode}`);
    const { generationId, leader } = joined[0]!;
    if (joined.some((j) => j.generationId !== generationId)) throw new Error('the members joined in different generations');
    for (const m of members) m.generation = generationId;
    const synced = await Promise.all(
      members.map((m) =>
        this.call(m.client, SyncGroupRequest, SyncGroupResponse, SYNC_VERSION, {
          groupId,
          generationId,
          memberId: m.memberId,
          groupInstanceId: null,
          protocolType: 'consumer',
          protocolName: 'range',
          assignments: m.memberId === leader ? members.map((o, i) => ({ memberId: o.memberId, assignment: assignment(TOPIC, share(i, members.length)) })) : [],
        }),
      ),
    );
    for (const r of synced) if (r.errorCode !== ErrorCode.NONE) throw new Error(`SyncGroup refused: ${r.errorCode}`);
  }

  /** `count` classic members join one after another, each join a rebalance of the group; ms. */
  async classicRebalance(groupId: string, count: number): Promise<{ ms: number; members: ClassicMember[] }> {
    const start = performance.now();
    const members: ClassicMember[] = [];
    for (let i = 0; i < count; i++) await this.classicJoin(groupId, members, 1);
    return { ms: performance.now() - start, members };
  }

  /** µs of each of `count` classic Heartbeats from the members in turn, the group Stable. */
  async classicSteady(groupId: string, members: readonly ClassicMember[], count: number): Promise<number> {
    const latencies: number[] = [];
    for (let i = 0; i < count; i++) {
      const m = members[i % members.length]!;
      const r = await timed(latencies, () =>
        this.call(m.client, HeartbeatRequest, HeartbeatResponse, CLASSIC_HEARTBEAT_VERSION, {
          groupId,
          generationId: m.generation,
          memberId: m.memberId,
          groupInstanceId: null,
        }),
      );
      if (r.errorCode !== ErrorCode.NONE) throw new Error(`Heartbeat refused: ${r.errorCode}`);
    }
    return median(latencies);
  }

  async stop(): Promise<void> {
    for (const c of this.classicClients) c.close();
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
    // The large classic group: one member, then all the others in one rebalance, which ends when the
    // first has rejoined after them all (an Empty group's first rebalance ends only on a timer).
    const classicBig = target.newGroup();
    const classicMembers: ClassicMember[] = [];
    await target.classicJoin(classicBig, classicMembers, 1);
    await target.classicJoin(classicBig, classicMembers, large - 1);
    const classicSolo = target.newGroup();
    const classicSingle = (await target.classicRebalance(classicSolo, 1)).members;
    // The large consumer group joins once: its members then heartbeat in turn.
    const big = target.newGroup();
    const members: Member[] = [];
    for (let i = 0; i < large; i++) await target.join(big, members);
    await target.settle(big, members);
    const solo = target.newGroup();
    const single = (await target.rebalance(solo, 1)).members;
    const [one, ten, bigBeats, oneBeats, classicOne, classicTen, classicBigBeats, classicOneBeats] = await alternating(smoke ? 1 : 3, [
      async () => (await target.rebalance(target.newGroup(), 1)).ms,
      async () => (await target.rebalance(target.newGroup(), 10)).ms,
      () => target.steady(big, members, beats),
      () => target.steady(solo, single, beats),
      async () => (await target.classicRebalance(target.newGroup(), 1)).ms,
      async () => (await target.classicRebalance(target.newGroup(), 10)).ms,
      () => target.classicSteady(classicBig, classicMembers, beats),
      () => target.classicSteady(classicSolo, classicSingle, beats),
    ]);
    return [
      compared('consumer group: 10 members join and settle, one after another (ms)', lowest(ten!), lowest(one!), 'one member', 1),
      compared('classic group: 10 members join and sync, one after another (ms)', lowest(classicTen!), lowest(classicOne!), 'one member', 1),
      compared('10 members join, consumer protocol against classic (ms)', lowest(ten!), lowest(classicTen!), 'classic', 1),
      compared(`ConsumerGroupHeartbeat p50, ${fmt(large)} members (µs)`, lowest(bigBeats!), lowest(oneBeats!), 'one member'),
      compared(`classic Heartbeat p50, ${fmt(large)} members (µs)`, lowest(classicBigBeats!), lowest(classicOneBeats!), 'one member'),
      compared(`heartbeat p50 at ${fmt(large)} members, consumer protocol against classic (µs)`, lowest(bigBeats!), lowest(classicBigBeats!), 'classic'),
    ];
  } finally {
    await target.stop();
  }
}
