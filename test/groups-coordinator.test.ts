import { openOffsetsLog } from './helpers/offsets-log.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinatorLogNotWritten, type CoordinatorLog } from '../src/protocol/coordinator-log.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import type { JoinOutcome, Protocol, SyncOutcome } from '../src/groups/classic-group.js';
import { GroupCoordinator, type CoordinatorOptions } from '../src/groups/group-coordinator.js';
import type { JoinRequest } from '../src/groups/rebalancer.js';
import type { Scheduler } from '../src/groups/scheduler.js';
import { until } from './helpers/until.js';

/** Time that moves only when told to. */
class ManualScheduler implements Scheduler {
  now = 0;
  private tasks: { at: number; seq: number; task: () => void; cancelled: boolean }[] = [];
  private seq = 0;

  schedule(delayMs: number, task: () => void) {
    const entry = { at: this.now + delayMs, seq: this.seq++, task, cancelled: false };
    this.tasks.push(entry);
    return () => {
      entry.cancelled = true;
    };
  }

  get pending(): number {
    return this.tasks.filter((t) => !t.cancelled).length;
  }

  /** Runs, in time order, every task due within `ms`. */
  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      this.tasks = this.tasks.filter((t) => !t.cancelled);
      const next = this.tasks.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (next === undefined) break;
      this.now = next.at;
      next.cancelled = true;
      next.task();
      await flush();
    }
    this.now = end;
    await flush();
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise's value once it has settled, undefined before. */
function watch<T>(promise: Promise<T>): { value: T | undefined } {
  const box: { value: T | undefined } = { value: undefined };
  void promise.then((v) => (box.value = v));
  return box;
}

/** A coordinator over `dir`, its offsets in a real `__consumer_offsets` there; closing it closes the topic's storage too. */
async function openGroups(
  dir: string,
  options: Partial<CoordinatorOptions> & Pick<CoordinatorOptions, 'log'>,
  appends: { refused: boolean } = { refused: false },
): Promise<GroupCoordinator> {
  const offsets = await openOffsetsLog(dir);
  // The topic refuses appends while `appends.refused` is set, as a log whose partition is gone does.
  const log: CoordinatorLog = {
    ...offsets.log,
    append: (partition, records) =>
      appends.refused ? Promise.reject(new CoordinatorLogNotWritten(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'refused')) : offsets.log.append(partition, records),
  };
  let groups: GroupCoordinator;
  try {
    groups = await GroupCoordinator.open(dir, log, options);
  } catch (err) {
    await offsets.close();
    throw err;
  }
  const close = groups.close.bind(groups);
  groups.close = async () => {
    await close();
    await offsets.close();
  };
  return groups;
}

const INITIAL_DELAY = 100;
const SESSION = 10_000;
const REBALANCE = 30_000;
/** offsets.retention.check.interval.ms, Kafka's default */
const CLEANUP_INTERVAL = 600_000;
const quiet = { info() {}, warn() {}, error() {} };

async function coordinator(
  t: { after(fn: () => Promise<void>): void },
  options: Partial<CoordinatorOptions> = {},
): Promise<{ groups: GroupCoordinator; clock: ManualScheduler }> {
  const dir = await mkdtemp(join(tmpdir(), 'brook-groups-'));
  const clock = new ManualScheduler();
  const groups = await openGroups(dir, { scheduler: clock, now: () => clock.now, initialRebalanceDelayMs: INITIAL_DELAY, log: quiet, ...options });
  t.after(async () => {
    await groups.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { groups, clock };
}

function protocols(...names: string[]): Protocol[] {
  return names.map((name) => ({ name, metadata: Buffer.from(`meta-${name}`) }));
}

function joinRequest(overrides: Partial<JoinRequest> = {}): JoinRequest {
  return {
    groupId: 'g',
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: protocols('range'),
    sessionTimeoutMs: SESSION,
    rebalanceTimeoutMs: REBALANCE,
    clientId: 'client',
    clientHost: '/127.0.0.1',
    requireKnownMemberId: true,
    ...overrides,
  };
}

/** A member's first join (v4+ handshake): the member id it is given. */
async function memberId(groups: GroupCoordinator, overrides: Partial<JoinRequest> = {}): Promise<string> {
  const first = await groups.join(joinRequest(overrides));
  assert.equal(first.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  return first.memberId;
}

/** Joins one member into an empty group, syncs it, and returns its id and generation. */
async function soleStableMember(
  groups: GroupCoordinator,
  clock: ManualScheduler,
  overrides: Partial<JoinRequest> = {},
): Promise<{ id: string; generation: number }> {
  const id = await memberId(groups, overrides);
  const joined = watch(groups.join(joinRequest({ ...overrides, memberId: id })));
  await clock.advance(INITIAL_DELAY);
  const outcome = joined.value!;
  assert.equal(outcome.errorCode, ErrorCode.NONE);
  const sync = await groups.sync({
    groupId: overrides.groupId ?? 'g',
    generationId: outcome.generationId,
    memberId: id,
    groupInstanceId: overrides.groupInstanceId ?? null,
    protocolType: 'consumer',
    protocolName: outcome.protocolName,
    assignments: [{ memberId: id, assignment: Buffer.from('all') }],
  });
  assert.equal(sync.errorCode, ErrorCode.NONE);
  return { id, generation: outcome.generationId };
}

/** A static member alone in an empty group (no member id round trip), synced; its id and generation. */
async function soleStaticMember(groups: GroupCoordinator, clock: ManualScheduler, groupInstanceId: string): Promise<{ id: string; generation: number }> {
  const joined = watch(groups.join(joinRequest({ groupInstanceId })));
  await clock.advance(INITIAL_DELAY);
  const { memberId: id, generationId: generation } = joined.value!;
  await groups.sync({
    groupId: 'g',
    generationId: generation,
    memberId: id,
    groupInstanceId,
    protocolType: null,
    protocolName: null,
    assignments: [{ memberId: id, assignment: Buffer.from('all') }],
  });
  return { id, generation };
}

function heartbeat(groups: GroupCoordinator, memberId: string, generationId: number, groupInstanceId: string | null = null): number {
  return groups.heartbeat({ groupId: 'g', generationId, memberId, groupInstanceId });
}

test('a first join is answered MEMBER_ID_REQUIRED; the rejoin completes after the initial delay with the member as leader', async (t) => {
  const { groups, clock } = await coordinator(t);
  const id = await memberId(groups, { clientId: 'kafkajs' });
  assert.match(id, /^kafkajs-[0-9a-f-]{36}$/);
  const joined = watch(groups.join(joinRequest({ memberId: id })));
  await clock.advance(INITIAL_DELAY - 1);
  assert.equal(joined.value, undefined);
  await clock.advance(1);
  const outcome = joined.value!;
  assert.deepEqual(
    { ...outcome, members: outcome.members.map((m) => [m.memberId, m.metadata.toString()]) },
    {
      errorCode: 0,
      generationId: 1,
      protocolType: 'consumer',
      protocolName: 'range',
      leader: id,
      skipAssignment: false,
      memberId: id,
      members: [[id, 'meta-range']],
    },
  );
  assert.equal(groups.describe('g').state, 'CompletingRebalance');
  const sync = await groups.sync({
    groupId: 'g',
    generationId: 1,
    memberId: id,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [{ memberId: id, assignment: Buffer.from('a') }],
  });
  assert.deepEqual(sync, { errorCode: 0, protocolType: 'consumer', protocolName: 'range', assignment: Buffer.from('a') });
  assert.equal(groups.describe('g').state, 'Stable');
  assert.equal(heartbeat(groups, id, 1), ErrorCode.NONE);
});

test('before JoinGroup v4 a first join takes part in the rebalance directly', async (t) => {
  const { groups, clock } = await coordinator(t);
  const joined = watch(groups.join(joinRequest({ requireKnownMemberId: false })));
  await clock.advance(INITIAL_DELAY);
  assert.equal(joined.value!.errorCode, ErrorCode.NONE);
  assert.equal(joined.value!.leader, joined.value!.memberId);
});

test('a second member starts a rebalance that completes as soon as the first rejoins; followers wait for the leader', async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await soleStableMember(groups, clock);
  const b = await memberId(groups);
  const bJoin = watch(groups.join(joinRequest({ memberId: b })));
  await flush();
  assert.equal(bJoin.value, undefined);
  assert.equal(heartbeat(groups, a.id, a.generation), ErrorCode.REBALANCE_IN_PROGRESS);
  const aJoin = await groups.join(joinRequest({ memberId: a.id }));
  await flush();
  assert.equal(aJoin.generationId, 2);
  assert.equal(aJoin.leader, a.id);
  assert.deepEqual(
    aJoin.members.map((m) => m.memberId),
    [a.id, b],
  );
  assert.deepEqual({ ...bJoin.value!, members: bJoin.value!.members.length }, { ...aJoin, memberId: b, members: 0 });

  const bSync = watch(
    groups.sync({ groupId: 'g', generationId: 2, memberId: b, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] }),
  );
  await flush();
  assert.equal(bSync.value, undefined, 'a follower waits for the leader');
  const aSync = await groups.sync({
    groupId: 'g',
    generationId: 2,
    memberId: a.id,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [
      { memberId: a.id, assignment: Buffer.from('p0,p1') },
      { memberId: b, assignment: Buffer.from('p2,p3') },
    ],
  });
  await flush();
  assert.equal(aSync.assignment.toString(), 'p0,p1');
  assert.equal(bSync.value!.assignment.toString(), 'p2,p3');
  assert.equal(heartbeat(groups, a.id, 1), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(heartbeat(groups, 'stranger', 2), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(heartbeat(groups, b, 2), ErrorCode.NONE);
});

test('members that do not rejoin within the rebalance timeout are dropped from the next generation', async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await soleStableMember(groups, clock);
  const b = await memberId(groups);
  const bJoin = watch(groups.join(joinRequest({ memberId: b, rebalanceTimeoutMs: 5000 })));
  // a keeps heartbeating but never rejoins.
  for (let i = 0; i < 10; i++) {
    await clock.advance(3000);
    if (bJoin.value === undefined) assert.equal(heartbeat(groups, a.id, a.generation), ErrorCode.REBALANCE_IN_PROGRESS);
  }
  assert.equal(clock.now >= REBALANCE, true);
  assert.equal(bJoin.value!.generationId, 2);
  assert.equal(bJoin.value!.leader, b);
  assert.deepEqual(
    bJoin.value!.members.map((m) => m.memberId),
    [b],
  );
  assert.equal(heartbeat(groups, a.id, 2), ErrorCode.UNKNOWN_MEMBER_ID);
});

test('a member whose session expires is removed and the others rebalance without it', async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await soleStableMember(groups, clock);
  const b = await memberId(groups);
  const bJoin = watch(groups.join(joinRequest({ memberId: b })));
  const aJoin = await groups.join(joinRequest({ memberId: a.id }));
  await flush();
  const assignments = [a.id, b].map((memberId) => ({ memberId, assignment: Buffer.from(memberId) }));
  await Promise.all([
    groups.sync({ groupId: 'g', generationId: 2, memberId: b, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] }),
    groups.sync({ groupId: 'g', generationId: 2, memberId: a.id, groupInstanceId: null, protocolType: null, protocolName: null, assignments }),
  ]);
  assert.equal(bJoin.value!.generationId, aJoin.generationId);
  // Only b heartbeats.
  for (let elapsed = 0; elapsed <= SESSION; elapsed += 3000) {
    assert.equal(heartbeat(groups, b, 2), ErrorCode.NONE);
    await clock.advance(3000);
  }
  assert.equal(heartbeat(groups, a.id, 2), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(heartbeat(groups, b, 2), ErrorCode.REBALANCE_IN_PROGRESS);
  const rejoined = await groups.join(joinRequest({ memberId: b }));
  assert.deepEqual([rejoined.generationId, rejoined.leader, rejoined.members.length], [3, b, 1]);
});

test('a member that never sends SyncGroup is removed after the rebalance timeout', async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await memberId(groups);
  const b = await memberId(groups);
  const aJoin = watch(groups.join(joinRequest({ memberId: a })));
  const bJoin = watch(groups.join(joinRequest({ memberId: b })));
  await clock.advance(INITIAL_DELAY);
  assert.equal(aJoin.value, undefined, 'a member joining during the initial delay extends it');
  await clock.advance(INITIAL_DELAY);
  assert.equal(aJoin.value!.generationId, 1);
  assert.equal(bJoin.value!.generationId, 1);
  const leader = aJoin.value!.leader;
  const follower = leader === a ? b : a;
  await groups.sync({ groupId: 'g', generationId: 1, memberId: leader, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] });
  // Both keep their sessions alive; the follower just never syncs.
  let answer: number = ErrorCode.NONE;
  for (let elapsed = 0; elapsed < REBALANCE && answer === ErrorCode.NONE; elapsed += 3000) {
    await clock.advance(3000);
    answer = heartbeat(groups, leader, 1);
    heartbeat(groups, follower, 1);
  }
  assert.equal(answer, ErrorCode.REBALANCE_IN_PROGRESS);
  assert.equal(clock.now >= REBALANCE, true);
  assert.equal(heartbeat(groups, follower, 1), ErrorCode.UNKNOWN_MEMBER_ID);
});

test('leaving: the leader goes, the other member rejoins alone and leads', async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await soleStableMember(groups, clock);
  const b = await memberId(groups);
  const bJoin = watch(groups.join(joinRequest({ memberId: b })));
  await groups.join(joinRequest({ memberId: a.id }));
  await flush();
  await Promise.all([
    groups.sync({ groupId: 'g', generationId: 2, memberId: b, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] }),
    groups.sync({ groupId: 'g', generationId: 2, memberId: a.id, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] }),
  ]);
  assert.equal(bJoin.value!.leader, a.id);
  assert.deepEqual(
    groups.leave('g', [
      { memberId: a.id, groupInstanceId: null },
      { memberId: 'nobody', groupInstanceId: null },
    ]),
    {
      errorCode: 0,
      members: [
        { memberId: a.id, groupInstanceId: null, errorCode: ErrorCode.NONE },
        { memberId: 'nobody', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
      ],
    },
  );
  assert.equal(heartbeat(groups, b, 2), ErrorCode.REBALANCE_IN_PROGRESS);
  const rejoined = await groups.join(joinRequest({ memberId: b }));
  assert.deepEqual([rejoined.generationId, rejoined.leader], [3, b]);
  assert.equal(groups.leave('g', [{ memberId: b, groupInstanceId: null }]).members[0]!.errorCode, ErrorCode.NONE);
  assert.equal(groups.describe('g').state, 'Empty');
  assert.deepEqual(groups.leave('other', [{ memberId: b, groupInstanceId: null }]).members[0]!.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('an Empty group keeps its generation and protocol type; the periodic cleanup removes it only once it has no offsets', async (t) => {
  const { groups, clock } = await coordinator(t);
  const leave = (groupId: string, memberId: string) => groups.leave(groupId, [{ memberId, groupInstanceId: null }]);
  const first = await soleStableMember(groups, clock);
  leave('g', first.id);
  assert.deepEqual([groups.describe('g').state, groups.describe('g').protocolType], ['Empty', 'consumer']);
  const second = await soleStableMember(groups, clock);
  assert.equal(second.generation, 3, 'the leave ended generation 2, with no members');
  const offsets = [{ topic: 't', partition: 0, offset: 1n, leaderEpoch: -1, metadata: '' }];
  assert.equal(
    await groups.commitOffsets({ groupId: 'g', generationId: second.generation, memberId: second.id, groupInstanceId: null, offsets, apiVersion: 8 }),
    ErrorCode.NONE,
  );
  leave('g', second.id);
  leave('bare', (await soleStableMember(groups, clock, { groupId: 'bare' })).id);

  await clock.advance(CLEANUP_INTERVAL - clock.now - 1);
  assert.deepEqual(groups.list(), [
    { groupId: 'g', protocolType: 'consumer', state: 'Empty', groupType: 'classic' },
    { groupId: 'bare', protocolType: 'consumer', state: 'Empty', groupType: 'classic' },
  ]);
  await clock.advance(1);
  assert.deepEqual(groups.list(), [{ groupId: 'g', protocolType: 'consumer', state: 'Empty', groupType: 'classic' }]);
  assert.equal(groups.describe('bare').state, 'Dead');
  assert.equal((await soleStableMember(groups, clock)).generation, 5);
});

test('protocol selection: what every member supports, by vote, ties going to the leader’s order', async (t) => {
  const { groups, clock } = await coordinator(t);
  const joinAll = async (sets: string[][]): Promise<JoinOutcome[]> => {
    const ids = [];
    for (const set of sets) ids.push(await memberId(groups, { protocols: protocols(...set) }));
    const joins = ids.map((id, i) => watch(groups.join(joinRequest({ memberId: id, protocols: protocols(...sets[i]!) }))));
    await clock.advance(INITIAL_DELAY * sets.length);
    return joins.map((j) => j.value!);
  };
  const [first] = await joinAll([
    ['range', 'roundrobin', 'sticky'],
    ['roundrobin', 'range'],
  ]);
  assert.equal(first!.protocolName, 'range');
  assert.deepEqual(
    first!.members.map((m) => m.metadata.toString()),
    ['meta-range', 'meta-range'],
  );

  const { groups: other, clock: otherClock } = await coordinator(t);
  const ids = [
    await memberId(other, { protocols: protocols('range', 'roundrobin') }),
    await memberId(other, { protocols: protocols('roundrobin', 'range') }),
    await memberId(other, { protocols: protocols('roundrobin') }),
  ];
  const sets = [['range', 'roundrobin'], ['roundrobin', 'range'], ['roundrobin']];
  const joins = ids.map((id, i) => watch(other.join(joinRequest({ memberId: id, protocols: protocols(...sets[i]!) }))));
  await otherClock.advance(INITIAL_DELAY * sets.length);
  assert.equal(joins[0]!.value!.protocolName, 'roundrobin');
});

test('INCONSISTENT_GROUP_PROTOCOL for another protocol type or no common protocol, a rejoining member’s too, or a SyncGroup naming another protocol', async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await soleStableMember(groups, clock);
  assert.equal((await groups.join(joinRequest({ protocolType: 'connect' }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.equal((await groups.join(joinRequest({ protocols: protocols('sticky') }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.equal((await groups.join(joinRequest({ protocols: [], groupId: 'fresh' }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.equal(groups.describe('fresh').state, 'Dead', 'a group is not made by a join it refuses');
  // A sole member is checked against itself as it was: it cannot switch type or protocols by rejoining.
  assert.equal((await groups.join(joinRequest({ memberId: a.id, protocolType: 'connect' }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.equal((await groups.join(joinRequest({ memberId: a.id, protocols: protocols('sticky') }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.deepEqual(
    [groups.describe('g').state, groups.describe('g').protocolType, heartbeat(groups, a.id, a.generation)],
    ['Stable', 'consumer', ErrorCode.NONE],
  );
  const sync = await groups.sync({
    groupId: 'g',
    generationId: a.generation,
    memberId: a.id,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'sticky',
    assignments: [],
  });
  assert.equal(sync.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
});

test('request checks: empty group id, session timeout bounds, unknown member ids', async (t) => {
  const { groups } = await coordinator(t);
  assert.equal((await groups.join(joinRequest({ groupId: '' }))).errorCode, ErrorCode.INVALID_GROUP_ID);
  assert.equal((await groups.join(joinRequest({ sessionTimeoutMs: 5999 }))).errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
  assert.equal((await groups.join(joinRequest({ sessionTimeoutMs: 1_800_001 }))).errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
  assert.equal((await groups.join(joinRequest({ memberId: 'made-up' }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  const sync: SyncOutcome = await groups.sync({
    groupId: 'g',
    generationId: 1,
    memberId: 'made-up',
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [],
  });
  assert.equal(sync.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test("a SyncGroup of a Stable group restarts the member's session, as a heartbeat does", async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await soleStableMember(groups, clock);
  await clock.advance(SESSION - 1000);
  const synced = await groups.sync({
    groupId: 'g',
    generationId: a.generation,
    memberId: a.id,
    groupInstanceId: null,
    protocolType: null,
    protocolName: null,
    assignments: [],
  });
  assert.equal(synced.errorCode, ErrorCode.NONE);
  await clock.advance(SESSION - 1000);
  assert.equal(heartbeat(groups, a.id, a.generation), ErrorCode.NONE, 'still a member, a session after its last heartbeat');
});

test('a member id handed out but never used may leave: the Stable group does not rebalance for it', async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await soleStableMember(groups, clock);
  const unused = await memberId(groups);
  assert.equal(groups.leave('g', [{ memberId: unused, groupInstanceId: null }]).members[0]!.errorCode, ErrorCode.NONE);
  assert.equal(heartbeat(groups, a.id, a.generation), ErrorCode.NONE);
  assert.equal(groups.describe('g').state, 'Stable');
  assert.equal((await groups.join(joinRequest({ memberId: unused }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('a member id handed out but never used expires after the session timeout', async (t) => {
  const { groups, clock } = await coordinator(t);
  const unused = await memberId(groups);
  await clock.advance(SESSION);
  assert.equal(groups.describe('g').state, 'Empty');
  assert.equal((await groups.join(joinRequest({ memberId: unused }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('a member that rejoins with unchanged metadata while the group completes its rebalance gets the same generation', async (t) => {
  const { groups, clock } = await coordinator(t);
  const id = await memberId(groups);
  const joined = watch(groups.join(joinRequest({ memberId: id })));
  await clock.advance(INITIAL_DELAY);
  const again = await groups.join(joinRequest({ memberId: id }));
  assert.deepEqual(again, joined.value);
});

test('static members: no member id round trip; a restarted instance takes its place without a rebalance and fences the old id', async (t) => {
  const { groups, clock } = await coordinator(t);
  const joined = watch(groups.join(joinRequest({ groupInstanceId: 'host-1' })));
  await clock.advance(INITIAL_DELAY);
  const first = joined.value!;
  assert.equal(first.errorCode, ErrorCode.NONE);
  assert.match(first.memberId, /^host-1-/);
  await groups.sync({
    groupId: 'g',
    generationId: 1,
    memberId: first.memberId,
    groupInstanceId: 'host-1',
    protocolType: null,
    protocolName: null,
    assignments: [{ memberId: first.memberId, assignment: Buffer.from('mine') }],
  });

  const restarted = await groups.join(joinRequest({ groupInstanceId: 'host-1' }));
  assert.equal(restarted.errorCode, ErrorCode.NONE);
  assert.notEqual(restarted.memberId, first.memberId);
  assert.equal(restarted.generationId, 1);
  assert.equal(restarted.leader, restarted.memberId);
  assert.equal(restarted.skipAssignment, true);
  assert.equal(groups.describe('g').state, 'Stable');
  assert.equal(heartbeat(groups, first.memberId, 1, 'host-1'), ErrorCode.FENCED_INSTANCE_ID);
  assert.equal(heartbeat(groups, restarted.memberId, 1, 'host-1'), ErrorCode.NONE);
  const sync = await groups.sync({
    groupId: 'g',
    generationId: 1,
    memberId: restarted.memberId,
    groupInstanceId: 'host-1',
    protocolType: null,
    protocolName: null,
    assignments: [],
  });
  assert.equal(sync.assignment.toString(), 'mine');

  const left = groups.leave('g', [{ memberId: '', groupInstanceId: 'host-1' }]);
  assert.equal(left.members[0]!.errorCode, ErrorCode.NONE);
  assert.equal(groups.describe('g').state, 'Empty');
});

test('commits: generation -1 into an empty or unknown group, member and generation checked otherwise', async (t) => {
  const { groups, clock } = await coordinator(t);
  const offsets = [{ topic: 't', partition: 0, offset: 42n, leaderEpoch: 3, metadata: 'm' }];
  const commit = (groupId: string, generationId: number, memberId: string, apiVersion = 8) =>
    groups.commitOffsets({ groupId, generationId, memberId, groupInstanceId: null, offsets, apiVersion });

  await clock.advance(1234);
  assert.equal(await commit('simple', -1, ''), ErrorCode.NONE);
  assert.deepEqual(groups.committedOffsets('simple')?.get('t')?.get(0), { offset: 42n, leaderEpoch: 3, metadata: 'm', commitTimestamp: 1234 });
  assert.deepEqual(groups.list(), [{ groupId: 'simple', protocolType: '', state: 'Empty', groupType: 'classic' }]);
  assert.equal(await commit('simple', 3, 'someone'), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(await commit('nowhere', 1, 'someone'), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(await commit('nowhere', 1, 'someone', 9), ErrorCode.GROUP_ID_NOT_FOUND);

  const id = await memberId(groups);
  const joined = watch(groups.join(joinRequest({ memberId: id })));
  await clock.advance(INITIAL_DELAY);
  assert.equal(await commit('g', 1, id), ErrorCode.REBALANCE_IN_PROGRESS, 'awaiting SyncGroup');
  await groups.sync({ groupId: 'g', generationId: 1, memberId: id, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] });
  assert.equal(joined.value!.generationId, 1);
  assert.equal(await commit('g', 1, id), ErrorCode.NONE);
  assert.equal(await commit('g', 0, id), ErrorCode.ILLEGAL_GENERATION);
  assert.equal(await commit('g', 1, 'other'), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.equal(await commit('g', -1, ''), ErrorCode.UNKNOWN_MEMBER_ID, 'a group with members takes no anonymous commits');

  // During a rebalance a member may still commit what it processed in its generation.
  const b = await memberId(groups);
  void groups.join(joinRequest({ memberId: b }));
  assert.equal(groups.describe('g').state, 'PreparingRebalance');
  assert.equal(await commit('g', 1, id), ErrorCode.NONE);
});

test('describe, list and delete', async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await soleStableMember(groups, clock, { clientId: 'app' });
  await groups.commitOffsets({
    groupId: 'g',
    generationId: a.generation,
    memberId: a.id,
    groupInstanceId: null,
    offsets: [{ topic: 't', partition: 1, offset: 7n, leaderEpoch: -1, metadata: '' }],
    apiVersion: 8,
  });
  assert.deepEqual(groups.describe('g'), {
    groupId: 'g',
    protocolType: 'consumer',
    state: 'Stable',
    protocolData: 'range',
    members: [
      { memberId: a.id, groupInstanceId: null, clientId: 'app', clientHost: '/127.0.0.1', metadata: Buffer.from('meta-range'), assignment: Buffer.from('all') },
    ],
  });
  assert.deepEqual(groups.describe('unknown'), { groupId: 'unknown', protocolType: '', state: 'Dead', protocolData: '', members: [] });
  assert.deepEqual(groups.list(), [{ groupId: 'g', protocolType: 'consumer', state: 'Stable', groupType: 'classic' }]);
  assert.equal(await groups.delete('g'), ErrorCode.NON_EMPTY_GROUP);
  assert.equal(await groups.delete('unknown'), ErrorCode.GROUP_ID_NOT_FOUND);
  groups.leave('g', [{ memberId: a.id, groupInstanceId: null }]);
  assert.deepEqual(groups.list(), [{ groupId: 'g', protocolType: 'consumer', state: 'Empty', groupType: 'classic' }]);
  assert.equal(await groups.delete('g'), ErrorCode.NONE);
  assert.equal(groups.committedOffsets('g'), undefined);
  assert.deepEqual(groups.list(), []);
  assert.equal(clock.pending, 1, 'no timers left behind but the periodic cleanup');
});

test('close answers waiting joins and syncs, cancels every timer, and refuses later requests', async (t) => {
  const { groups, clock } = await coordinator(t);
  const a = await soleStableMember(groups, clock);
  const b = await memberId(groups);
  const bJoin = groups.join(joinRequest({ memberId: b }));
  await groups.close();
  assert.equal((await bJoin).errorCode, ErrorCode.NOT_COORDINATOR);
  assert.equal(clock.pending, 0);
  assert.equal(heartbeat(groups, a.id, a.generation), ErrorCode.NOT_COORDINATOR);
  assert.equal((await groups.join(joinRequest())).errorCode, ErrorCode.NOT_COORDINATOR);
});

test('groups come back from a restart as their last rebalance left them: members go on at their generation, one that does not is removed after its session', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'brook-groups-'));
  const open = (clock: ManualScheduler) => openGroups(dir, { scheduler: clock, initialRebalanceDelayMs: INITIAL_DELAY, log: quiet });
  const clock = new ManualScheduler();
  const before = await open(clock);
  const a = await soleStableMember(before, clock, { clientId: 'client-a' });
  const b = await memberId(before, { clientId: 'client-b' });
  const bJoin = before.join(joinRequest({ memberId: b, clientId: 'client-b', protocols: protocols('range', 'roundrobin') }));
  await before.join(joinRequest({ memberId: a.id, clientId: 'client-a', protocols: protocols('range', 'roundrobin') }));
  const assignments = [
    { memberId: a.id, assignment: Buffer.from('p0,p1') },
    { memberId: b, assignment: Buffer.from('p2,p3') },
  ];
  const bSync = before.sync({ groupId: 'g', generationId: 2, memberId: b, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] });
  await before.sync({ groupId: 'g', generationId: 2, memberId: a.id, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments });
  assert.equal((await bJoin).generationId, 2);
  assert.equal((await bSync).assignment.toString(), 'p2,p3');
  before.leave('left', [{ memberId: (await soleStableMember(before, clock, { groupId: 'left' })).id, groupInstanceId: null }]);
  await before.close();

  const later = new ManualScheduler();
  const after = await open(later);
  t.after(async () => {
    await after.close();
    await rm(dir, { recursive: true, force: true });
  });
  const described = after.describe('g');
  assert.deepEqual(
    { ...described, members: described.members.map((m) => [m.memberId, m.clientId, m.metadata.toString(), m.assignment.toString()]) },
    {
      groupId: 'g',
      protocolType: 'consumer',
      state: 'Stable',
      protocolData: 'range',
      members: [
        [a.id, 'client-a', 'meta-range', 'p0,p1'],
        [b, 'client-b', 'meta-range', 'p2,p3'],
      ],
    },
  );
  assert.deepEqual(
    after.list().find((g) => g.groupId === 'left'),
    { groupId: 'left', protocolType: 'consumer', state: 'Empty', groupType: 'classic' },
  );
  assert.equal(heartbeat(after, a.id, 2), ErrorCode.NONE, 'no rebalance: the member goes on');
  const again = await after.sync({
    groupId: 'g',
    generationId: 2,
    memberId: b,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [],
  });
  assert.equal(again.assignment.toString(), 'p2,p3', 'its assignment is still there');
  const offsets = [{ topic: 't', partition: 0, offset: 7n, leaderEpoch: -1, metadata: '' }];
  assert.equal(await after.commitOffsets({ groupId: 'g', generationId: 2, memberId: a.id, groupInstanceId: null, offsets, apiVersion: 8 }), ErrorCode.NONE);
  // A rejoin with the same subscription is answered with the generation it has.
  const rejoined = await after.join(joinRequest({ memberId: b, clientId: 'client-b', protocols: protocols('range', 'roundrobin') }));
  assert.deepEqual([rejoined.errorCode, rejoined.generationId, rejoined.leader], [ErrorCode.NONE, 2, a.id]);

  // From the start each member has a session to show it is there; b now says nothing more.
  await later.advance(SESSION - 1);
  assert.equal(heartbeat(after, a.id, 2), ErrorCode.NONE);
  await later.advance(1);
  assert.equal(heartbeat(after, a.id, 2), ErrorCode.REBALANCE_IN_PROGRESS, 'b is gone: the group rebalances without it');
});

test("a groups file that is not of brook's form stops the open, naming the file, instead of being replaced", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'brook-groups-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'groups.json');
  for (const text of ['{', '{"version":1,"groups":[{"groupId":"g","members":"none"}]}', '[]']) {
    await writeFile(file, text);
    await assert.rejects(
      openGroups(dir, { log: quiet }),
      new RegExp(`^Error: ${file.replace(/[.]/g, '\\.')} is (not valid JSON|JSON, but not of the form brook writes there)`),
    );
    assert.equal(await readFile(file, 'utf8'), text);
  }
});

/** A directory for a coordinator that a test opens more than once, as a broker restarting. */
async function restartable(
  t: { after(fn: () => Promise<void>): void },
  options: Partial<CoordinatorOptions> = {},
): Promise<{ dir: string; appends: { refused: boolean }; open: (clock: ManualScheduler) => Promise<GroupCoordinator> }> {
  const appends = { refused: false };
  const dir = await mkdtemp(join(tmpdir(), 'brook-groups-'));
  const opened: GroupCoordinator[] = [];
  t.after(async () => {
    for (const groups of opened) await groups.close();
    await rm(dir, { recursive: true, force: true });
  });
  const open = async (clock: ManualScheduler) => {
    const groups = await openGroups(dir, { scheduler: clock, now: () => clock.now, initialRebalanceDelayMs: INITIAL_DELAY, log: quiet, ...options }, appends);
    opened.push(groups);
    return groups;
  };
  return { dir, appends, open };
}

test('a static member that came back under a new id is known by it after a restart; its old id stays fenced', async (t) => {
  const { open } = await restartable(t);
  const clock = new ManualScheduler();
  const before = await open(clock);
  const first = await soleStaticMember(before, clock, 'host-1');
  const back = await before.join(joinRequest({ groupInstanceId: 'host-1' }));
  assert.deepEqual([back.errorCode, back.generationId], [ErrorCode.NONE, first.generation]);
  await before.close();

  const after = await open(new ManualScheduler());
  assert.equal(heartbeat(after, back.memberId, first.generation, 'host-1'), ErrorCode.NONE);
  assert.equal(heartbeat(after, first.id, first.generation, 'host-1'), ErrorCode.FENCED_INSTANCE_ID);
  assert.equal(
    (
      await after.sync({
        groupId: 'g',
        generationId: first.generation,
        memberId: back.memberId,
        groupInstanceId: 'host-1',
        protocolType: null,
        protocolName: null,
        assignments: [],
      })
    ).assignment.toString(),
    'all',
  );
});

test("a static member's return that cannot be stored is refused and the old member put back, as Kafka does", async (t) => {
  const { appends, open } = await restartable(t);
  const clock = new ManualScheduler();
  const groups = await open(clock);
  const first = await soleStaticMember(groups, clock, 'host-1');
  appends.refused = true;
  const refused = await groups.join(joinRequest({ groupInstanceId: 'host-1' }));
  assert.equal(refused.errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  assert.equal(heartbeat(groups, first.id, first.generation, 'host-1'), ErrorCode.NONE, 'the old member is back');
  assert.equal(heartbeat(groups, refused.memberId, first.generation, 'host-1'), ErrorCode.FENCED_INSTANCE_ID);
  appends.refused = false;
  await groups.close();
  // What the topic holds is the old member, not the refused one.
  const after = await open(new ManualScheduler());
  assert.equal(heartbeat(after, first.id, first.generation, 'host-1'), ErrorCode.NONE);
  assert.equal(heartbeat(after, refused.memberId, first.generation, 'host-1'), ErrorCode.FENCED_INSTANCE_ID);
});

test('a stored Empty group lists after a restart, is deleted by DeleteGroups, and the cleanup removes one without offsets', async (t) => {
  const { open } = await restartable(t);
  const clock = new ManualScheduler();
  const before = await open(clock);
  for (const groupId of ['deleted', 'cleaned'])
    before.leave(groupId, [{ memberId: (await soleStableMember(before, clock, { groupId })).id, groupInstanceId: null }]);
  await before.close();

  const later = new ManualScheduler();
  const after = await open(later);
  assert.deepEqual(
    after.list().sort((a, b) => a.groupId.localeCompare(b.groupId)),
    ['cleaned', 'deleted'].map((groupId) => ({ groupId, protocolType: 'consumer', state: 'Empty', groupType: 'classic' })),
  );
  assert.equal(await after.delete('deleted'), ErrorCode.NONE);
  await later.advance(CLEANUP_INTERVAL);
  assert.deepEqual(after.list(), []);
  await after.close();
  assert.deepEqual((await open(new ManualScheduler())).list(), [], 'neither comes back');
});

/** offsets.retention.minutes of the expiry tests, and their check interval. */
const RETENTION = 60_000;
const EXPIRY = { offsetsRetentionMs: RETENTION, cleanupIntervalMs: 1000 };

/** Moves the clock on by `ms`, the member heartbeating on the way so that its session lasts. */
async function advanceBeating(groups: GroupCoordinator, clock: ManualScheduler, ms: number, member: { id: string; generation: number }): Promise<void> {
  for (let left = ms; left > 0; left -= SESSION / 2) {
    await clock.advance(Math.min(left, SESSION / 2));
    assert.equal(heartbeat(groups, member.id, member.generation), ErrorCode.NONE);
  }
}

const partitionsOf = (groups: GroupCoordinator, groupId: string): number[] => [...(groups.committedOffsets(groupId)?.get('t')?.keys() ?? [])].sort();

test('offsets of a group that only commits expire each offsets.retention.minutes after its commit; the group goes with the last', async (t) => {
  const { groups, clock } = await coordinator(t, EXPIRY);
  const commit = (partition: number) =>
    groups.commitOffsets({
      groupId: 'simple',
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      offsets: [{ topic: 't', partition, offset: 5n, leaderEpoch: -1, metadata: '' }],
      apiVersion: 8,
    });
  assert.equal(await commit(0), ErrorCode.NONE);
  await clock.advance(30_000);
  assert.equal(await commit(1), ErrorCode.NONE);
  await clock.advance(RETENTION - 30_000 - 1000);
  assert.deepEqual(partitionsOf(groups, 'simple'), [0, 1]);
  await clock.advance(1000);
  await until(() => partitionsOf(groups, 'simple').length === 1, 'the first commit has expired');
  assert.deepEqual(partitionsOf(groups, 'simple'), [1]);
  await clock.advance(30_000);
  await until(() => groups.committedOffsets('simple') === undefined, 'the second commit has expired');
  assert.deepEqual([groups.list(), groups.describe('simple').state], [[], 'Dead']);
});

test('a group keeps its offsets while it has members; once Empty, all expire offsets.retention.minutes after it became Empty, and the group goes', async (t) => {
  const { groups, clock } = await coordinator(t, EXPIRY);
  const member = await soleStableMember(groups, clock);
  const offsets = [0, 1].map((partition) => ({ topic: 't', partition, offset: 9n, leaderEpoch: -1, metadata: '' }));
  assert.equal(
    await groups.commitOffsets({ groupId: 'g', generationId: member.generation, memberId: member.id, groupInstanceId: null, offsets, apiVersion: 8 }),
    ErrorCode.NONE,
  );
  await advanceBeating(groups, clock, 3 * RETENTION, member);
  assert.deepEqual(partitionsOf(groups, 'g'), [0, 1], 'a Stable group keeps offsets older than the retention');
  groups.leave('g', [{ memberId: member.id, groupInstanceId: null }]);
  assert.equal(groups.describe('g').state, 'Empty');
  await clock.advance(RETENTION - 1000);
  assert.deepEqual(partitionsOf(groups, 'g'), [0, 1], 'counted from when the group became Empty, not from the commit');
  await clock.advance(EXPIRY.cleanupIntervalMs * 2); // past the retention, and the next check after it
  await until(() => groups.committedOffsets('g') === undefined, 'the offsets have expired');
  await clock.advance(EXPIRY.cleanupIntervalMs);
  assert.deepEqual([groups.list(), groups.describe('g').state], [[], 'Dead']);
});

test('when a group became Empty is kept across a restart: its offsets expire counting from then, not from the commit', async (t) => {
  const { open } = await restartable(t, EXPIRY);
  const clock = new ManualScheduler();
  const before = await open(clock);
  const member = await soleStableMember(before, clock);
  const offsets = [{ topic: 't', partition: 0, offset: 3n, leaderEpoch: -1, metadata: '' }];
  assert.equal(
    await before.commitOffsets({ groupId: 'g', generationId: member.generation, memberId: member.id, groupInstanceId: null, offsets, apiVersion: 8 }),
    ErrorCode.NONE,
  );
  await advanceBeating(before, clock, 30_000, member);
  before.leave('g', [{ memberId: member.id, groupInstanceId: null }]);
  const emptySince = clock.now;
  await before.close();

  const later = new ManualScheduler();
  later.now = emptySince;
  const after = await open(later);
  await later.advance(RETENTION - 1000);
  assert.deepEqual(partitionsOf(after, 'g'), [0]);
  await later.advance(1000);
  await until(() => after.committedOffsets('g') === undefined, 'the offsets have expired');
});
