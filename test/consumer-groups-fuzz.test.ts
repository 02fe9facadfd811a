/**
 * The group coordinators under random traffic on the wire: members of both protocols on their own
 * connections send JoinGroup, SyncGroup, Heartbeat, LeaveGroup and ConsumerGroupHeartbeat in every
 * version served, right and wrong, with commits, fetches and describes between them, and requests
 * with junk in them. Properties: every request is answered, never with UNKNOWN_SERVER_ERROR, and the
 * broker logs no error; a partition is never held by two members at once (a member holds what an
 * answer gave it until it reports having let it go); once the members left reconcile, every
 * subscribed partition is assigned to exactly one of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { pino } from 'pino';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { assignedPartitions, readSubscription, writeAssignment } from '../src/groups/consumer-protocol.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import type { MessageCodec } from '../src/protocol/messages/codec.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../src/protocol/messages/consumer-group-describe.js';
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../src/protocol/messages/consumer-group-heartbeat.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../src/protocol/messages/create-partitions.js';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../src/protocol/messages/delete-groups.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { HeartbeatRequest, HeartbeatResponse } from '../src/protocol/messages/heartbeat.js';
import { JoinGroupRequest, JoinGroupResponse } from '../src/protocol/messages/join-group.js';
import { LeaveGroupRequest, LeaveGroupResponse } from '../src/protocol/messages/leave-group.js';
import { ListGroupsRequest, ListGroupsResponse } from '../src/protocol/messages/list-groups.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../src/protocol/messages/offset-commit.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../src/protocol/messages/offset-fetch.js';
import { SyncGroupRequest, SyncGroupResponse } from '../src/protocol/messages/sync-group.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../src/protocol/messages/txn-offset-commit.js';
import { Writer } from '../src/protocol/primitives/writer.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

const FIRST_TOPICS: Record<string, number> = { 'fz-a': 4, 'fz-b': 3, 'other-c': 2 };
/** The topics and their partition counts, as runs add to them. */
let TOPICS: Record<string, number> = {};
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

let broker: Broker;
let admin: WireClient;
const logged: string[] = [];
const versions = new Map<number, { min: number; max: number }>();
const topicIds = new Map<string, string>();
const topicNames = new Map<string, string>();

/** How long a member has to give partitions up, or to rejoin and sync, before it is removed. */
let rebalanceTimeoutMs = 30_000;

async function open(sessionTimeoutMs: number, rebalanceMs: number): Promise<void> {
  const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
  broker = await startBroker({
    logger,
    consumerGroupSessionTimeoutMs: sessionTimeoutMs,
    consumerGroupMinSessionTimeoutMs: Math.min(sessionTimeoutMs, 45_000),
    consumerGroupMaxSessionTimeoutMs: Math.max(sessionTimeoutMs, 60_000),
    consumerGroupMinHeartbeatIntervalMs: 50,
    consumerGroupHeartbeatIntervalMs: 100,
  });
  rebalanceTimeoutMs = rebalanceMs;
  TOPICS = { ...FIRST_TOPICS };
  admin = await WireClient.connect(broker.port);
  for (const [name, n] of Object.entries(TOPICS)) await createTopic(admin, name, n);
  const apis = await admin.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1' });
  for (const a of apis.apiKeys) versions.set(a.apiKey, { min: a.minVersion, max: a.maxVersion });
  const metadata = await admin.request(MetadataRequest, MetadataResponse, 12, {
    topics: null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  for (const t of metadata.topics) {
    topicIds.set(t.name!, t.topicId);
    topicNames.set(t.topicId, t.name!);
  }
}

async function close(): Promise<void> {
  admin.close();
  await broker.close();
}

/** A version of the API served, picked by `pick`. */
function version(codec: MessageCodec<unknown>, pick: number): number {
  const range = versions.get(codec.apiKey)!;
  return range.min + (pick % (range.max - range.min + 1));
}

/** Every errorCode in an answer, however deep. */
function errorCodes(value: unknown, out: number[] = []): number[] {
  if (Array.isArray(value)) for (const v of value) errorCodes(v, out);
  else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'errorCode' && typeof v === 'number') out.push(v);
      else errorCodes(v, out);
    }
  }
  return out;
}

/** The run's requests and answers, shown when it fails. */
const trace: string[] = [];
let failedTrace: string[] = [];
const queues = new WeakMap<WireClient, Promise<unknown>>();

async function ask<Req, Res>(c: WireClient, req: MessageCodec<Req>, res: MessageCodec<Res>, v: number, body: Req): Promise<Res> {
  if (process.env.FUZZ_TRACE !== undefined) trace.push(`→ ${req.name} v${v} ${JSON.stringify(body, jsonable).slice(0, 400)}`);
  // One request at a time on a connection: answers are matched to requests by their order.
  const turn = (queues.get(c) ?? Promise.resolve()).then(() => c.request(req, res, v, body));
  queues.set(
    c,
    turn.catch(() => {}),
  );
  const answer = await turn;
  if (process.env.FUZZ_TRACE !== undefined) trace.push(`← ${res.name} ${JSON.stringify(answer, jsonable).slice(0, 600)}`);
  assert.ok(
    !errorCodes(answer).includes(ErrorCode.UNKNOWN_SERVER_ERROR),
    `${req.name} v${v} ${JSON.stringify(body, jsonable)} → ${JSON.stringify(answer, jsonable)}`,
  );
  return answer;
}

const jsonable = (_: string, v: unknown): unknown => (typeof v === 'bigint' ? String(v) : Buffer.isBuffer(v) ? v.toString('hex').slice(0, 64) : v);

type Key = string; // `topic:partition`
const key = (topic: string, p: number): Key => `${topic}:${p}`;

function subscribedKeys(topics: readonly string[], regex: string | null): Set<Key> {
  const out = new Set<Key>();
  for (const [name, n] of Object.entries(TOPICS)) {
    if (topics.includes(name) || (regex !== null && new RegExp(`^(?:${regex})$`).test(name))) for (let p = 0; p < n; p++) out.add(key(name, p));
  }
  return out;
}

/** ConsumerProtocolSubscription: v0, or v1 with the partitions owned. */
function subscriptionBytes(topics: readonly string[], owned: ReadonlySet<Key> | null): Buffer {
  const w = new Writer(128);
  w.writeInt16(owned === null ? 0 : 1);
  w.writeArrayLength(topics.length);
  for (const t of topics) w.writeString(t);
  w.writeNullableBytes(null);
  if (owned !== null) {
    const byTopic = new Map<string, number[]>();
    for (const k of owned) {
      const [t, p] = split(k);
      byTopic.set(t, [...(byTopic.get(t) ?? []), p]);
    }
    w.writeArrayLength(byTopic.size);
    for (const [t, ps] of byTopic) {
      w.writeString(t);
      w.writeArrayLength(ps.length);
      for (const p of ps) w.writeInt32(p);
    }
  }
  return w.finish();
}

function split(k: Key): [string, number] {
  const i = k.lastIndexOf(':');
  return [k.slice(0, i), Number(k.slice(i + 1))];
}

interface Sim {
  readonly name: string;
  kind: 'consumer' | 'classic';
  conn: WireClient;
  memberId: string;
  /** The member epoch, or the generation. */
  epoch: number;
  instanceId: string | null;
  topics: string[];
  regex: string | null;
  /** What the last answer gave it. */
  told: Set<Key>;
  /** What it holds: given by answers and not yet reported let go. */
  held: Set<Key>;
  joined: boolean;
  /** A static consumer-protocol member away for a while (epoch -2). */
  away: boolean;
  /** A classic member whose last SyncGroup took partitions from it rejoins (the cooperative protocol). */
  rejoin: boolean;
  /** A classic request still unanswered (JoinGroup and SyncGroup may wait on others). */
  pending: Promise<void> | undefined;
  /** Versions this member speaks. */
  readonly v: number;
}

interface World {
  readonly groupId: string;
  readonly members: Sim[];
  readonly cooperative: boolean;
  /** The first failure of a request left running. */
  failure?: unknown;
}

/** A partition newly given to `to` must not be held by another member the broker still counts in the group. */
async function given(w: World, to: Sim, told: Set<Key>, where: string): Promise<void> {
  for (const k of told) {
    if (to.held.has(k)) continue;
    for (const other of w.members) {
      if (other === to || !other.held.has(k)) continue;
      if (!(await stillMember(w, other))) {
        other.held.clear();
        other.joined = false;
        continue;
      }
      assert.fail(`${where}: ${k} given to ${to.name} (${to.memberId}) while ${other.name} (${other.memberId}) holds it`);
    }
  }
  to.told = told;
  for (const k of told) to.held.add(k);
}

async function stillMember(w: World, m: Sim): Promise<boolean> {
  const d = await ask(admin, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 0, { groupIds: [w.groupId], includeAuthorizedOperations: false });
  if (d.groups[0]!.errorCode === ErrorCode.NONE) return d.groups[0]!.members.some((x) => x.memberId === m.memberId);
  const c = await ask(admin, DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: [w.groupId], includeAuthorizedOperations: false });
  return c.groups[0]!.members.some((x) => x.memberId === m.memberId);
}

function fromIds(list: readonly { topicId: string; partitions: number[] }[]): Set<Key> {
  const out = new Set<Key>();
  for (const t of list) for (const p of t.partitions) out.add(key(topicNames.get(t.topicId) ?? t.topicId, p));
  return out;
}

function toIds(keys: ReadonlySet<Key>): { topicId: string; partitions: number[] }[] {
  const by = new Map<string, number[]>();
  for (const k of keys) {
    const [t, p] = split(k);
    const id = topicIds.get(t)!;
    by.set(id, [...(by.get(id) ?? []), p]);
  }
  return [...by].map(([topicId, partitions]) => ({ topicId, partitions }));
}

// ---- consumer-protocol steps ----

/** ConsumerGroupHeartbeat v0 has no regex. */
const heartbeatVersion = (m: Pick<Sim, 'v' | 'regex'>): number =>
  m.regex !== null ? versions.get(ConsumerGroupHeartbeatRequest.apiKey)!.max : version(ConsumerGroupHeartbeatRequest, m.v);

type Report = 'held' | 'none' | 'less' | 'more';

async function consumerBeat(w: World, m: Sim, opts: { epoch?: number; report: Report; full: boolean; memberId?: string }): Promise<void> {
  const joining = !m.joined || m.away;
  let reported: Set<Key> | null;
  if (joining) reported = new Set();
  else if (opts.report === 'none') reported = null;
  else if (opts.report === 'less') reported = new Set([...m.told].slice(1));
  else if (opts.report === 'more') reported = new Set([...m.told, ...subscribedKeys(m.topics, m.regex)].slice(0, m.told.size + 1));
  // A client lets go of what the last answer took from it before it says what it owns.
  else reported = new Set(m.told);
  const epoch = opts.epoch ?? (joining ? 0 : m.epoch);
  if (reported !== null) {
    // What it reports not owning it has let go of; it cannot take more by saying so.
    for (const k of [...m.held]) if (!reported.has(k)) m.held.delete(k);
  }
  const full = joining || opts.full;
  const r = await ask(m.conn, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, heartbeatVersion(m), {
    groupId: w.groupId,
    memberId: opts.memberId ?? m.memberId,
    memberEpoch: epoch,
    instanceId: m.instanceId,
    rackId: null,
    rebalanceTimeoutMs: full ? rebalanceTimeoutMs : -1,
    subscribedTopicNames: full && m.regex === null ? m.topics : null,
    subscribedTopicRegex: full && m.regex !== null ? m.regex : null,
    serverAssignor: null,
    topicPartitions: reported === null ? null : toIds(reported),
  });
  if (opts.memberId !== undefined && opts.memberId !== m.memberId) return;
  if (r.errorCode === ErrorCode.NONE) {
    if (epoch === -1 || epoch === -2) {
      if (epoch === -1) [m.joined, m.held, m.told] = [false, new Set(), new Set()];
      else m.away = true;
      return;
    }
    [m.memberId, m.epoch, m.joined, m.away] = [r.memberId!, r.memberEpoch, true, false];
    if (r.assignment !== null) await given(w, m, fromIds(r.assignment.topicPartitions), `heartbeat of ${m.name}`);
  } else if (r.errorCode === ErrorCode.FENCED_MEMBER_EPOCH || r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
    if (epoch !== m.epoch && epoch !== 0) {
      // Only a wrong epoch was refused; a member whose own epoch is fenced rejoins.
      if (await stillMember(w, m)) return;
    }
    [m.joined, m.held, m.told, m.away] = [false, new Set(), new Set(), false];
  }
}

// ---- classic steps ----

function protocols(w: World, m: Sim): { name: string; metadata: Buffer }[] {
  return [{ name: w.cooperative ? 'cooperative-sticky' : 'range', metadata: subscriptionBytes(m.topics, w.cooperative ? m.held : null) }];
}

/** JoinGroup, then SyncGroup with the leader's assignment if it leads; each may wait on the others. */
async function classicJoin(w: World, m: Sim): Promise<void> {
  if (!w.cooperative) m.held.clear();
  const jv = version(JoinGroupRequest, m.v);
  const send = (memberId: string) =>
    ask(m.conn, JoinGroupRequest, JoinGroupResponse, jv, {
      groupId: w.groupId,
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: Math.min(rebalanceTimeoutMs, 1_000),
      memberId,
      groupInstanceId: jv >= 5 ? m.instanceId : null,
      protocolType: 'consumer',
      protocols: protocols(w, m),
      reason: null,
    });
  let j = await send(m.memberId);
  // As the clients do, the member keeps the id it is given, even when the join that names it is refused.
  if (j.errorCode === ErrorCode.MEMBER_ID_REQUIRED) [m.memberId, j] = [j.memberId, await send(j.memberId)];
  if (j.errorCode !== ErrorCode.NONE) {
    // A join cut short by the group's upgrade names the member it made (a JoinGroup before v4 is given no id first).
    if (j.errorCode === ErrorCode.REBALANCE_IN_PROGRESS && j.memberId !== '') m.memberId = j.memberId;
    if (j.errorCode === ErrorCode.UNKNOWN_MEMBER_ID || j.errorCode === ErrorCode.FENCED_INSTANCE_ID)
      [m.joined, m.memberId, m.held, m.told] = [false, '', new Set(), new Set()];
    return;
  }
  [m.memberId, m.epoch, m.joined] = [j.memberId, j.generationId, true];
  const assignments = j.leader === j.memberId ? leaderAssignment(w, j.members) : [];
  await classicSync(w, m, assignments);
}

/**
 * The test's leader, as a cooperative assignor: each member keeps what it owns and still wants; what
 * a member owns but must give up goes to no one this generation (its owner rejoins once it let go);
 * the rest go round the members subscribed.
 */
function leaderAssignment(w: World, members: readonly { memberId: string; metadata: Buffer }[]): { memberId: string; assignment: Buffer }[] {
  const given = new Map<string, Set<Key>>();
  const taken = new Set<Key>();
  const subs = new Map<string, Set<Key>>();
  for (const m of members) {
    const s = readSubscription(m.metadata);
    const wanted = subscribedKeys(s?.topics ?? [], null);
    subs.set(m.memberId, wanted);
    const keep = new Set<Key>();
    for (const t of s?.ownedPartitions ?? []) {
      for (const p of t.partitions) {
        const k = key(t.topic, p);
        if (wanted.has(k) && !taken.has(k)) keep.add(k);
        taken.add(k);
      }
    }
    given.set(m.memberId, keep);
  }
  let i = 0;
  for (const k of [...Object.entries(TOPICS)].flatMap(([t, n]) => [...Array(n).keys()].map((p) => key(t, p)))) {
    if (taken.has(k)) continue;
    const takers = members.filter((m) => subs.get(m.memberId)!.has(k));
    if (takers.length === 0) continue;
    given.get(takers[i++ % takers.length]!.memberId)!.add(k);
  }
  void w;
  return [...given].map(([memberId, keys]) => ({ memberId, assignment: assignmentBytes(keys) }));
}

function assignmentBytes(keys: ReadonlySet<Key>): Buffer {
  const by = new Map<string, number[]>();
  for (const k of keys) {
    const [t, p] = split(k);
    by.set(t, [...(by.get(t) ?? []), p]);
  }
  return writeAssignment(
    0,
    [...by].map(([topic, partitions]) => ({ topic, partitions })),
  );
}

async function classicSync(w: World, m: Sim, assignments: { memberId: string; assignment: Buffer }[]): Promise<void> {
  const sv = Math.min(version(SyncGroupRequest, m.v), versions.get(SyncGroupRequest.apiKey)!.max);
  const s = await ask(m.conn, SyncGroupRequest, SyncGroupResponse, sv, {
    groupId: w.groupId,
    generationId: m.epoch,
    memberId: m.memberId,
    groupInstanceId: version(JoinGroupRequest, m.v) >= 5 && sv >= 3 ? m.instanceId : null,
    protocolType: sv >= 5 ? 'consumer' : null,
    protocolName: sv >= 5 ? (w.cooperative ? 'cooperative-sticky' : 'range') : null,
    assignments,
  });
  if (s.errorCode !== ErrorCode.NONE) return;
  const told = new Set<Key>();
  for (const t of assignedPartitions(s.assignment) ?? []) for (const p of t.partitions) told.add(key(t.topic, p));
  // A classic member lets go of what it is no longer given as soon as it is told, and rejoins to say so.
  m.rejoin = [...m.held].some((k) => !told.has(k));
  for (const k of [...m.held]) if (!told.has(k)) m.held.delete(k);
  await given(w, m, told, `SyncGroup of ${m.name}`);
}

async function classicHeartbeat(w: World, m: Sim, generation: number, memberId: string): Promise<number> {
  const hv = version(HeartbeatRequest, m.v);
  const r = await ask(m.conn, HeartbeatRequest, HeartbeatResponse, hv, {
    groupId: w.groupId,
    generationId: generation,
    memberId,
    groupInstanceId: hv >= 3 && version(JoinGroupRequest, m.v) >= 5 ? m.instanceId : null,
  });
  return r.errorCode;
}

async function classicLeave(w: World, m: Sim): Promise<void> {
  const lv = version(LeaveGroupRequest, m.v);
  const static_ = lv >= 3 && version(JoinGroupRequest, m.v) >= 5 ? m.instanceId : null;
  [m.held, m.told] = [new Set(), new Set()];
  await ask(m.conn, LeaveGroupRequest, LeaveGroupResponse, lv, {
    groupId: w.groupId,
    memberId: lv < 3 ? m.memberId : '',
    members: lv >= 3 ? [{ memberId: m.memberId, groupInstanceId: static_, reason: null }] : [],
  });
  [m.joined, m.memberId] = [false, ''];
}

// ---- commands ----

type Command =
  | { kind: 'beat'; m: number; report: Report; full: boolean }
  | { kind: 'beatWrong'; m: number; how: 'stale' | 'future' | 'id' }
  | { kind: 'leave'; m: number; epoch: -1 | -2 }
  | { kind: 'classicJoin'; m: number }
  | { kind: 'classicBeat'; m: number; how: 'right' | 'generation' | 'id' }
  | { kind: 'classicLeave'; m: number }
  | { kind: 'commit'; m: number; v: number; stale: boolean }
  | { kind: 'txnCommit'; m: number; v: number }
  | { kind: 'fetch'; m: number; v: number }
  | { kind: 'describe'; v: number }
  | { kind: 'deleteGroup' }
  | { kind: 'resubscribe'; m: number; sub: number }
  | { kind: 'restart'; m: number; switchProtocol: boolean }
  | { kind: 'grow'; topic: number }
  | { kind: 'junk'; which: number; text: string; bytes: Uint8Array; n: number };

const member = fc.nat({ max: 4 });
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('beat' as const),
      m: member,
      report: fc.constantFrom<Report>('held', 'held', 'none', 'less', 'more'),
      full: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('beatWrong' as const), m: member, how: fc.constantFrom('stale' as const, 'future' as const, 'id' as const) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), m: member, epoch: fc.constantFrom(-1 as const, -2 as const) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('classicJoin' as const), m: member }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('classicBeat' as const),
      m: member,
      how: fc.constantFrom('right' as const, 'right' as const, 'generation' as const, 'id' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('classicLeave' as const), m: member }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('commit' as const), m: member, v: fc.nat(), stale: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('txnCommit' as const), m: member, v: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fetch' as const), m: member, v: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('describe' as const), v: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteGroup' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resubscribe' as const), m: member, sub: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), m: member, switchProtocol: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('grow' as const), topic: fc.nat({ max: 2 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('junk' as const),
      which: fc.nat({ max: 7 }),
      text: fc.oneof(fc.constant(''), fc.string({ maxLength: 8 }), fc.constant('x'.repeat(20_000))),
      bytes: fc.uint8Array({ maxLength: 40 }),
      n: fc.integer({ min: -3, max: 3 }),
    }),
  },
);

interface MemberSpec {
  kind: 'consumer' | 'classic';
  v: number;
  static_: boolean;
  sub: number;
}

const memberSpec: fc.Arbitrary<MemberSpec> = fc.record({
  kind: fc.constantFrom('consumer' as const, 'classic' as const),
  v: fc.nat(),
  static_: fc.boolean(),
  sub: fc.nat({ max: 3 }),
});

const SUBSCRIPTIONS: { topics: string[]; regex: string | null }[] = [
  { topics: ['fz-a'], regex: null },
  { topics: ['fz-a', 'fz-b'], regex: null },
  { topics: [], regex: 'fz-.*' },
  { topics: ['fz-b', 'other-c'], regex: null },
];

function background(w: World, m: Sim, work: Promise<void>): Promise<void> {
  return work.catch((err: unknown) => void (w.failure ??= err)).finally(() => (m.pending = undefined));
}

async function step(w: World, c: Command): Promise<void> {
  if (w.failure !== undefined) throw w.failure;
  const m = 'm' in c ? w.members[c.m % w.members.length]! : undefined;
  if (m?.pending !== undefined) return;
  switch (c.kind) {
    case 'beat':
      if (m!.kind === 'consumer') await consumerBeat(w, m!, { report: c.report, full: c.full });
      return;
    case 'beatWrong':
      if (m!.kind !== 'consumer' || !m!.joined) return;
      if (c.how === 'id') await consumerBeat(w, m!, { report: 'held', full: false, memberId: randomUUID() });
      else await consumerBeat(w, m!, { report: 'held', full: false, epoch: c.how === 'stale' ? m!.epoch - 1 : m!.epoch + 1 });
      return;
    case 'leave':
      if (m!.kind === 'consumer' && m!.joined && (c.epoch === -1 || m!.instanceId !== null))
        await consumerBeat(w, m!, { report: 'held', full: false, epoch: c.epoch });
      return;
    case 'classicJoin':
      if (m!.kind !== 'classic') return;
      m!.pending = background(w, m!, classicJoin(w, m!));
      return;
    case 'classicBeat': {
      if (m!.kind !== 'classic' || !m!.joined) return;
      const error = await classicHeartbeat(w, m!, c.how === 'generation' ? m!.epoch + 1 : m!.epoch, c.how === 'id' ? randomUUID() : m!.memberId);
      if (c.how === 'right' && (error === ErrorCode.REBALANCE_IN_PROGRESS || m!.rejoin)) m!.pending = background(w, m!, classicJoin(w, m!));
      if (c.how === 'right' && (error === ErrorCode.UNKNOWN_MEMBER_ID || error === ErrorCode.FENCED_INSTANCE_ID))
        [m!.joined, m!.memberId, m!.held, m!.told] = [false, '', new Set(), new Set()];
      return;
    }
    case 'classicLeave':
      if (m!.kind === 'classic' && m!.joined) await classicLeave(w, m!);
      return;
    case 'commit': {
      const v = version(OffsetCommitRequest, c.v);
      const [t, p] = split([...m!.held][0] ?? 'fz-a:0');
      await ask(m!.conn, OffsetCommitRequest, OffsetCommitResponse, v, {
        groupId: w.groupId,
        generationIdOrMemberEpoch: m!.joined ? m!.epoch - (c.stale ? 1 : 0) : -1,
        memberId: m!.joined ? m!.memberId : '',
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [
          {
            name: t,
            topicId: topicIds.get(t),
            partitions: [{ partitionIndex: p, committedOffset: 1n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null }],
          },
        ],
      });
      return;
    }
    case 'txnCommit': {
      const v = version(TxnOffsetCommitRequest, c.v);
      await ask(m!.conn, TxnOffsetCommitRequest, TxnOffsetCommitResponse, v, {
        transactionalId: 'fuzz-txn',
        groupId: w.groupId,
        producerId: 1n,
        producerEpoch: 0,
        generationId: m!.epoch,
        memberId: m!.memberId,
        groupInstanceId: null,
        topics: [{ name: 'fz-a', partitions: [{ partitionIndex: 0, committedOffset: 2n, committedLeaderEpoch: -1, committedMetadata: null }] }],
      });
      return;
    }
    case 'fetch': {
      const v = version(OffsetFetchRequest, c.v);
      await ask(m!.conn, OffsetFetchRequest, OffsetFetchResponse, v, {
        groupId: w.groupId,
        topics: v < 2 ? [{ name: 'fz-a', partitionIndexes: [0] }] : null,
        groups: [{ groupId: w.groupId, memberId: m!.joined ? m!.memberId : null, memberEpoch: m!.joined ? m!.epoch : -1, topics: null }],
        requireStable: true,
      });
      return;
    }
    case 'describe':
      await ask(admin, DescribeGroupsRequest, DescribeGroupsResponse, version(DescribeGroupsRequest, c.v), {
        groups: [w.groupId, 'nope'],
        includeAuthorizedOperations: true,
      });
      await ask(admin, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, version(ConsumerGroupDescribeRequest, c.v), {
        groupIds: [w.groupId, 'nope'],
        includeAuthorizedOperations: true,
      });
      await ask(admin, ListGroupsRequest, ListGroupsResponse, version(ListGroupsRequest, c.v), {
        statesFilter: ['Stable', 'bogus'],
        typesFilter: ['consumer', 'x'],
      });
      return;
    case 'deleteGroup':
      await ask(admin, DeleteGroupsRequest, DeleteGroupsResponse, version(DeleteGroupsRequest, 9), { groupsNames: [w.groupId] });
      return;
    case 'resubscribe': {
      const sub = SUBSCRIPTIONS[m!.kind === 'classic' ? c.sub % 2 : c.sub]!;
      if (sub.regex !== null && heartbeatVersion({ v: m!.v, regex: sub.regex }) >= 1 && m!.memberId === '') return;
      [m!.topics, m!.regex] = [sub.topics, sub.regex];
      // A classic member rejoins to tell its new subscription.
      if (m!.kind === 'classic') m!.rejoin = true;
      if (m!.kind === 'consumer' && m!.joined && !m!.away) await consumerBeat(w, m!, { report: 'held', full: true });
      return;
    }
    case 'restart':
      // A static member's process starts again: it holds nothing, knows no member id, keeps its instance id.
      // (A dynamic member's old self would hold its partitions until its session ends.)
      if (!isStatic(m!) || (c.switchProtocol && version(JoinGroupRequest, m!.v) < 5)) return;
      if (m!.kind === 'consumer' && m!.joined && !m!.away) await consumerBeat(w, m!, { report: 'held', full: false, epoch: -2 });
      if (c.switchProtocol) {
        m!.kind = m!.kind === 'consumer' ? 'classic' : 'consumer';
        const sub = SUBSCRIPTIONS[m!.kind === 'classic' ? 0 : 2]!;
        [m!.topics, m!.regex] = [sub.topics, sub.regex];
      }
      [m!.joined, m!.away, m!.held, m!.told, m!.epoch] = [false, false, new Set(), new Set(), 0];
      m!.memberId = m!.kind === 'consumer' && heartbeatVersion(m!) >= 1 ? randomUUID() : '';
      return;
    case 'grow':
      await grow(c.topic);
      return;
    case 'junk':
      await junk(w, c);
  }
}

/** Whether the member names its instance id in every request (JoinGroup from v5). */
const isStatic = (m: Sim): boolean => m.instanceId !== null && (m.kind === 'consumer' || version(JoinGroupRequest, m.v) >= 5);

/** More partitions for a topic, or a new topic a regex matches; a bounded number in all. */
async function grow(which: number): Promise<void> {
  if (Object.keys(TOPICS).length >= 12) return;
  if (which === 0) {
    const name = `fz-new-${Object.keys(TOPICS).length}`;
    await createTopic(admin, name, 2);
    const metadata = await admin.request(MetadataRequest, MetadataResponse, 12, {
      topics: [{ name, topicId: '00000000-0000-0000-0000-000000000000' }],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    topicIds.set(name, metadata.topics[0]!.topicId);
    topicNames.set(metadata.topics[0]!.topicId, name);
    TOPICS[name] = 2;
    return;
  }
  const name = which === 1 ? 'fz-a' : 'fz-b';
  if (TOPICS[name]! >= 12) return;
  const r = await ask(admin, CreatePartitionsRequest, CreatePartitionsResponse, 1, {
    topics: [{ name, count: TOPICS[name]! + 1, assignments: null }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  assert.equal(r.results[0]!.errorCode, ErrorCode.NONE);
  TOPICS[name]! += 1;
}

/** Requests with junk in them, on their own connection, to the group or to a group of their own. */
async function junk(w: World, c: Extract<Command, { kind: 'junk' }>): Promise<void> {
  const conn = await WireClient.connect(broker.port);
  try {
    const groupId = c.n === 0 ? c.text : `${w.groupId}-junk`;
    switch (c.which) {
      case 0:
      case 1:
        await ask(conn, JoinGroupRequest, JoinGroupResponse, version(JoinGroupRequest, c.which + c.n + 3), {
          groupId,
          sessionTimeoutMs: c.n < 0 ? c.n : 6000,
          rebalanceTimeoutMs: c.n < -1 ? c.n : 1000,
          memberId: c.text,
          groupInstanceId: c.n > 1 ? c.text : null,
          protocolType: c.which === 0 ? 'consumer' : c.text,
          protocols: c.n === 3 ? [] : [{ name: 'range', metadata: Buffer.from(c.bytes) }],
          reason: c.text,
        });
        return;
      case 2:
        await ask(conn, SyncGroupRequest, SyncGroupResponse, version(SyncGroupRequest, c.n + 3), {
          groupId: c.n > 0 ? w.groupId : groupId,
          generationId: c.n,
          memberId: c.text,
          groupInstanceId: null,
          protocolType: 'consumer',
          protocolName: c.text,
          assignments: [{ memberId: c.text, assignment: Buffer.from(c.bytes) }],
        });
        return;
      case 3:
      case 4:
        await ask(conn, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, version(ConsumerGroupHeartbeatRequest, c.which), {
          // A join that may be taken goes elsewhere: a member that never comes back would keep the group from settling.
          groupId: c.n > 0 && c.n !== 3 ? w.groupId : groupId,
          memberId: c.n > 0 ? (c.text.length > 0 ? c.text : randomUUID()) : c.text,
          memberEpoch: c.n === 3 ? 0 : c.n * 7,
          instanceId: c.n === -3 ? c.text : null,
          rackId: c.n === 2 ? c.text : null,
          rebalanceTimeoutMs: c.n === 3 ? 1000 : c.n,
          subscribedTopicNames: c.which === 3 ? [c.text] : null,
          subscribedTopicRegex: c.which === 4 ? c.text : null,
          serverAssignor: c.n === 1 ? c.text : null,
          topicPartitions: c.n === 3 ? [] : [{ topicId: randomUUID(), partitions: [c.n, -1] }],
        });
        return;
      case 5:
        await ask(conn, HeartbeatRequest, HeartbeatResponse, version(HeartbeatRequest, c.n + 3), {
          groupId: c.n > 0 ? w.groupId : groupId,
          generationId: c.n,
          memberId: c.text,
          groupInstanceId: c.n === 2 ? c.text : null,
        });
        return;
      case 6:
        await ask(conn, LeaveGroupRequest, LeaveGroupResponse, version(LeaveGroupRequest, c.n + 3), {
          groupId: c.n > 0 ? w.groupId : groupId,
          memberId: c.text,
          members: [{ memberId: c.text, groupInstanceId: c.n === 2 ? c.text : null, reason: c.text }],
        });
        return;
      default:
        await ask(conn, OffsetCommitRequest, OffsetCommitResponse, version(OffsetCommitRequest, c.n + 3), {
          groupId: c.n > 0 ? w.groupId : groupId,
          generationIdOrMemberEpoch: c.n,
          memberId: c.text,
          groupInstanceId: c.n === 2 ? c.text : null,
          retentionTimeMs: -1n,
          topics: [
            {
              name: c.text,
              topicId: randomUUID(),
              partitions: [{ partitionIndex: c.n, committedOffset: BigInt(c.n), committedLeaderEpoch: c.n, commitTimestamp: -1n, committedMetadata: c.text }],
            },
          ],
        });
    }
  } finally {
    conn.close();
  }
}

/** Everyone still in reconciles until the group is Stable; then each subscribed partition has exactly one holder. */
async function settle(w: World): Promise<void> {
  await Promise.all(w.members.map((m) => m.pending ?? Promise.resolve()));
  if (w.failure !== undefined) throw w.failure;
  // Every member, even one that left, is in the group at the end.
  const live = w.members;
  // Each classic member on its own, as its client would: heartbeats, and a rejoin when asked (a classic
  // group's join waits for every member, so one member must not wait on another's join).
  const calm = new Map<Sim, boolean>();
  let settling = true;
  const drive = async (m: Sim): Promise<void> => {
    while (settling) {
      const error = m.joined ? await classicHeartbeat(w, m, m.epoch, m.memberId) : -99;
      if (error === ErrorCode.NONE && !m.rejoin) calm.set(m, true);
      else [calm.set(m, false), await classicJoin(w, m)];
      await sleep(20);
    }
  };
  const drivers = live.filter((m) => m.kind === 'classic').map((m) => drive(m).catch((err: unknown) => void (w.failure ??= err)));
  try {
    for (let round = 0; round < 500; round++) {
      if (w.failure !== undefined) throw w.failure;
      for (const m of live) if (m.kind === 'consumer') await consumerBeat(w, m, { report: 'held', full: true });
      const classicCalm = live.every((m) => m.kind === 'consumer' || calm.get(m) === true);
      if (classicCalm && (await settled(w, live))) return;
      await sleep(20);
    }
  } finally {
    settling = false;
    await Promise.all(drivers);
  }
  assert.fail(`the group did not settle: ${JSON.stringify(await describe(w))}`);
}

async function describe(w: World): Promise<unknown> {
  return {
    consumer: await ask(admin, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 0, { groupIds: [w.groupId], includeAuthorizedOperations: false }),
    classic: await ask(admin, DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: [w.groupId], includeAuthorizedOperations: false }),
    model: w.members.map((m) => ({ name: m.name, id: m.memberId, epoch: m.epoch, joined: m.joined, held: [...m.held] })),
  };
}

async function settled(w: World, live: Sim[]): Promise<boolean> {
  const d = (await ask(admin, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 0, { groupIds: [w.groupId], includeAuthorizedOperations: false }))
    .groups[0]!;
  if (d.errorCode === ErrorCode.NONE && d.groupState !== 'Stable') return false;
  const wanted = new Set<Key>();
  for (const m of live) for (const k of subscribedKeys(m.topics, m.regex)) wanted.add(k);
  const holders = new Map<Key, string[]>();
  for (const m of live) for (const k of m.held) holders.set(k, [...(holders.get(k) ?? []), m.name]);
  for (const k of wanted)
    if ((holders.get(k) ?? []).length !== 1)
      return d.errorCode !== ErrorCode.NONE
        ? false
        : assert.fail(`${k} held by ${holders.get(k)?.join(',') ?? 'none'} in a Stable group: ${JSON.stringify(await describe(w))}`);
  return true;
}

let runs = 0;

const SETTINGS = [
  // Sessions long enough that no member expires while a run goes on.
  { name: 'the group coordinators answer random traffic and never give a partition to two members', sessionMs: 60_000, rebalanceMs: 30_000 },
  { name: 'the same, with sessions and rebalance timeouts short enough that members are removed while the runs go on', sessionMs: 1000, rebalanceMs: 300 },
];

for (const { name, sessionMs, rebalanceMs } of SETTINGS) {
  test(name, async () => {
    await open(sessionMs, rebalanceMs);
    try {
      await fuzz();
    } finally {
      await close();
    }
  });
}

async function fuzz(): Promise<void> {
  await fc
    .assert(
      fc.asyncProperty(
        fc.array(memberSpec, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.array(command, { minLength: 1, maxLength: 40 }),
        async (specs, cooperative, commands) => {
          const w: World = { groupId: `fuzz-${runs++}`, members: [], cooperative };
          for (const [i, s] of specs.entries()) {
            const sub = SUBSCRIPTIONS[s.kind === 'classic' ? s.sub % 2 : s.sub]!;
            w.members.push({
              name: `${s.kind}${i}`,
              kind: s.kind,
              conn: await WireClient.connect(broker.port),
              memberId: s.kind === 'consumer' && heartbeatVersion({ v: s.v, regex: sub.regex }) >= 1 ? randomUUID() : '',
              epoch: 0,
              instanceId: s.static_ ? `instance-${i}` : null,
              topics: sub.topics,
              regex: sub.regex,
              told: new Set(),
              held: new Set(),
              joined: false,
              away: false,
              rejoin: false,
              pending: undefined,
              v: s.v,
            });
          }
          trace.length = 0;
          try {
            for (const c of commands) await step(w, c);
            await settle(w);
            const errors = logged.splice(0);
            assert.deepEqual(errors, []);
          } catch (err) {
            failedTrace = trace.slice();
            throw err;
          } finally {
            for (const m of w.members) m.conn.close();
          }
        },
      ),
      {
        numRuns: process.env.FUZZ_CASE === undefined ? RUNS : 0,
        endOnFailure: process.env.FUZZ_SEED !== undefined || process.env.FUZZ_NO_SHRINK !== undefined,
        examples:
          process.env.FUZZ_CASE === undefined
            ? []
            : [
                JSON.parse(process.env.FUZZ_CASE, (k, v: unknown) => (k === 'bytes' ? Uint8Array.from(v as number[]) : v)) as [
                  MemberSpec[],
                  boolean,
                  Command[],
                ],
              ],
        ...(process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED), path: process.env.FUZZ_PATH, endOnFailure: true }),
      },
    )
    .catch((err: Error) => {
      throw new Error(`${err.message}\n${String((err.cause as Error | undefined)?.message)}\n${failedTrace.join('\n')}`);
    });
}
