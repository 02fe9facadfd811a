import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ASSIGNORS, range, uniform, type AssignorMember, type TopicPartitions } from '../src/groups/assignors.js';
import { ConsumerGroup, joiningMember, size, type ConsumerMember, type TopicImage } from '../src/groups/consumer-group.js';

const TOPICS = ['t0', 't1', 't2'];

const matches = (regex: string, topic: string): boolean => new RegExp(`^(?:${regex})$`).test(topic);

const CLASSIC = { sessionTimeoutMs: 10_000, supportedProtocols: [{ name: 'range', metadata: Buffer.alloc(0) }] };

function member(memberId: string, topics: readonly string[], regex: string | null, classic = false): ConsumerMember {
  const identity = { memberId, instanceId: null, rackId: null, clientId: 'c', clientHost: '/127.0.0.1', rebalanceTimeoutMs: 1000 };
  return joiningMember({ ...identity, subscribedTopicNames: [...topics], subscribedTopicRegex: regex, serverAssignor: null }, classic ? CLASSIC : null);
}

type Op =
  | { kind: 'join'; m: number; topics: string[]; regex: boolean }
  | { kind: 'leave'; m: number }
  | { kind: 'timeout'; m: number }
  | { kind: 'subscribe'; m: number; topics: string[] }
  | { kind: 'heartbeat'; m: number; full: boolean; revokeNow: boolean }
  | { kind: 'partitions'; topic: number; count: number };

const memberIndex = fc.integer({ min: 0, max: 4 });
const topicsArb = fc.subarray(TOPICS);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('join' as const), m: memberIndex, topics: topicsArb, regex: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), m: memberIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('timeout' as const), m: memberIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('subscribe' as const), m: memberIndex, topics: topicsArb }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), m: memberIndex, full: fc.boolean(), revokeNow: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('partitions' as const), topic: fc.integer({ min: 0, max: 2 }), count: fc.integer({ min: 1, max: 7 }) }),
  },
);

/** What a client believes it owns: what it was given, less what it has revoked. */
class Client {
  owned: TopicPartitions = new Map();
}

function copy(partitions: TopicPartitions): TopicPartitions {
  return new Map([...partitions].map(([t, s]) => [t, new Set(s)]));
}

function union(a: TopicPartitions, b: TopicPartitions): TopicPartitions {
  const out = copy(a);
  for (const [t, s] of b) for (const p of s) (out.get(t) ?? out.set(t, new Set()).get(t)!).add(p);
  return out;
}

/** Fails when two of the sets share a partition. */
function assertDisjoint(sets: Iterable<[string, TopicPartitions]>, what: string): void {
  const seen = new Map<string, string>();
  for (const [owner, partitions] of sets) {
    for (const [t, s] of partitions) {
      for (const p of s) {
        const key = `${t}-${p}`;
        assert.equal(seen.get(key), undefined, `${what}: ${key} owned by ${seen.get(key)} and ${owner}`);
        seen.set(key, owner);
      }
    }
  }
}

/** No partition is owned twice: not by the broker's account (assigned or awaiting revocation), nor by what the clients believe. */
function assertOwnedOnce(group: ConsumerGroup, clients: ReadonlyMap<string, Client>): void {
  assertDisjoint(
    [...group.members.values()].map((m) => [m.memberId, union(m.assigned, m.pendingRevocation)]),
    'broker',
  );
  assertDisjoint(
    [...clients].map(([cid, c]) => [cid, c.owned]),
    'clients',
  );
}

/** Every partition of every topic a member subscribes to is assigned, and nothing else; and each member is given only topics it subscribes to. */
function assertSubscriptionsAssigned(group: ConsumerGroup, img: TopicImage): void {
  const expected = new Set<string>();
  for (const m of group.members.values()) {
    const subscribed = group.subscribedTopics(m, img, matches);
    for (const t of subscribed) {
      for (let p = 0; p < img.byName.get(t.slice(3))!.partitions; p++) expected.add(`${t}-${p}`);
    }
    for (const t of m.assigned.keys()) assert.ok(subscribed.has(t), `${m.memberId} given ${t} it does not subscribe to`);
  }
  const assigned = new Set([...group.members.values()].flatMap((m) => [...m.assigned].flatMap(([t, s]) => [...s].map((p) => `${t}-${p}`))));
  assert.deepEqual([...assigned].sort(), [...expected].sort());
}

test('reconciliation: a partition is never owned twice, and a stable group has every subscribed partition once', () => {
  fc.assert(
    fc.property(fc.constantFrom('uniform' as const, 'range' as const), fc.array(op, { maxLength: 60 }), (assignorName, ops) => {
      const assignor = ASSIGNORS[assignorName];
      const counts = [3, 2, 4];
      const image = (): TopicImage => ({
        byName: new Map(TOPICS.map((name, i) => [name, { topicId: `id-${name}`, partitions: counts[i]! }])),
        key: counts.join(),
      });
      const group = new ConsumerGroup('g');
      const clients = new Map<string, Client>();
      let epochBefore = 0;
      const heartbeat = (id: string, full: boolean, revokeNow: boolean): void => {
        const m = group.members.get(id)!;
        const client = clients.get(id)!;
        group.refreshTarget(image(), assignor, matches);
        group.reconcile(m, full ? copy(client.owned) : null);
        // The answer's assignment: the client takes what it is given, and drops what it no longer has at once or later.
        client.owned = revokeNow ? copy(m.assigned) : union(client.owned, m.assigned);
      };
      for (const o of ops) {
        const id = `m${'m' in o ? o.m : 0}`;
        const present = group.members.has(id);
        switch (o.kind) {
          case 'join':
            if (present) continue;
            group.addMember(member(id, o.topics, o.regex ? 't[12]' : null));
            clients.set(id, new Client());
            heartbeat(id, true, true);
            break;
          case 'leave':
          case 'timeout':
            if (!present) continue;
            // A leaving client gives up everything first; a timed-out one is gone.
            clients.delete(id);
            group.removeMember(id);
            break;
          case 'subscribe':
            if (!present) continue;
            group.subscribe(group.members.get(id)!, { topicNames: o.topics, topicRegex: null, serverAssignor: null });
            break;
          case 'heartbeat':
            if (!present) continue;
            heartbeat(id, o.full, o.revokeNow);
            break;
          case 'partitions':
            counts[o.topic] = Math.max(counts[o.topic]!, o.count);
            break;
        }
        assert.ok(group.groupEpoch >= epochBefore, 'the group epoch never goes back');
        epochBefore = group.groupEpoch;
        assertOwnedOnce(group, clients);
        for (const m of group.members.values()) assert.ok(m.memberEpoch <= group.groupEpoch);
      }
      // Every member heartbeats with what it owns and revokes at once: the group settles.
      // Three rounds suffice: owners revoke, then acknowledge it, then the others take what was released.
      for (let round = 0; round < 3; round++) for (const id of group.members.keys()) heartbeat(id, true, true);
      if (group.members.size === 0) return;
      assert.equal(group.state(), 'Stable');
      const img = image();
      for (const m of group.members.values()) {
        assert.equal(m.memberEpoch, group.groupEpoch);
        assert.equal(size(m.pendingRevocation), 0);
        assert.deepEqual(clients.get(m.memberId)!.owned, m.assigned);
      }
      assertSubscriptionsAssigned(group, img);
    }),
    { numRuns: 300 },
  );
});

/**
 * Classic members among consumer-protocol ones, as a consumer group serves them: a classic client
 * learns of a change only from its heartbeat (REBALANCE_IN_PROGRESS when `mustRejoin`), and gives
 * partitions up only by rejoining: an eager one owns nothing when it rejoins, a cooperative one says
 * what it still owns, and drops what its new assignment leaves out only later (by its next step).
 */
type MixedOp =
  | { kind: 'consumerJoin'; m: number; topics: string[] }
  | { kind: 'classicJoin'; m: number; topics: string[]; cooperative: boolean }
  | { kind: 'leave'; m: number }
  | { kind: 'timeout'; m: number }
  | { kind: 'rejoin'; m: number; topics: string[] | null }
  | { kind: 'heartbeat'; m: number; revokeNow: boolean };

const mixedOp: fc.Arbitrary<MixedOp> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('consumerJoin' as const), m: memberIndex, topics: topicsArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('classicJoin' as const), m: memberIndex, topics: topicsArb, cooperative: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), m: memberIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('timeout' as const), m: memberIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rejoin' as const), m: memberIndex, topics: fc.option(topicsArb) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), m: memberIndex, revokeNow: fc.boolean() }) },
);

test('reconciliation with classic members joining, leaving and rejoining: never owned twice, all assigned once stable', () => {
  fc.assert(
    fc.property(fc.constantFrom('uniform' as const, 'range' as const), fc.array(mixedOp, { maxLength: 60 }), (assignorName, ops) => {
      const assignor = ASSIGNORS[assignorName];
      const img: TopicImage = { byName: new Map(TOPICS.map((name, i) => [name, { topicId: `id-${name}`, partitions: [3, 2, 4][i]! }])), key: 'k' };
      const group = new ConsumerGroup('g');
      const clients = new Map<string, Client & { classic?: 'eager' | 'cooperative'; given?: TopicPartitions }>();
      const consumerBeat = (id: string, revokeNow: boolean): void => {
        const client = clients.get(id)!;
        group.refreshTarget(img, assignor, matches);
        group.reconcile(group.members.get(id)!, copy(client.owned));
        const assigned = group.members.get(id)!.assigned;
        client.owned = revokeNow ? copy(assigned) : union(client.owned, assigned);
      };
      // JoinGroup then SyncGroup: the subscription says what the client owns (nothing, for an eager one); it ends owning what SyncGroup gives.
      const classicRejoin = (id: string, topics: string[] | null): void => {
        const client = clients.get(id)!;
        const m = group.members.get(id)!;
        revoked(id);
        if (client.classic === 'eager') client.owned = new Map();
        if (topics !== null) group.subscribe(m, { topicNames: topics, topicRegex: '', serverAssignor: null });
        group.refreshTarget(img, assignor, matches);
        group.reconcile(m, copy(client.owned));
        client.given = copy(m.assigned);
        client.owned = client.classic === 'eager' ? copy(m.assigned) : union(client.owned, m.assigned);
      };
      // A cooperative client's revocation of what its last SyncGroup left out is done by its next step.
      const revoked = (id: string): void => {
        const client = clients.get(id)!;
        if (client.given !== undefined) client.owned = copy(client.given);
      };
      const classicBeat = (id: string): void => {
        revoked(id);
        if (group.mustRejoin(group.members.get(id)!)) classicRejoin(id, null);
      };
      for (const o of ops) {
        const id = `m${o.m}`;
        const present = group.members.has(id);
        switch (o.kind) {
          case 'consumerJoin':
          case 'classicJoin':
            if (present) continue;
            group.addMember(member(id, o.topics, null, o.kind === 'classicJoin'));
            clients.set(
              id,
              o.kind === 'classicJoin' ? Object.assign(new Client(), { classic: o.cooperative ? ('cooperative' as const) : ('eager' as const) }) : new Client(),
            );
            if (o.kind === 'classicJoin') classicRejoin(id, null);
            else consumerBeat(id, true);
            break;
          case 'leave':
          case 'timeout':
            if (!present) continue;
            clients.delete(id);
            group.removeMember(id);
            break;
          case 'rejoin':
            if (!present || clients.get(id)!.classic === undefined) continue;
            classicRejoin(id, o.topics);
            break;
          case 'heartbeat':
            if (!present) continue;
            if (clients.get(id)!.classic === undefined) consumerBeat(id, o.revokeNow);
            else classicBeat(id);
            break;
        }
        assertOwnedOnce(group, clients);
      }
      // Every member heartbeats (a classic one rejoining when told to) until the group settles.
      for (let round = 0; round < 4; round++) {
        for (const id of group.members.keys()) {
          if (clients.get(id)!.classic === undefined) consumerBeat(id, true);
          else classicBeat(id);
        }
      }
      if (group.members.size === 0) return;
      assert.equal(group.state(), 'Stable');
      for (const m of group.members.values()) {
        assert.equal(m.memberEpoch, group.groupEpoch);
        assert.equal(group.mustRejoin(m), false);
        assert.deepEqual(clients.get(m.memberId)!.owned, m.assigned);
      }
      assertSubscriptionsAssigned(group, img);
    }),
    { numRuns: 300 },
  );
});

const assignorInput = fc
  .record({
    members: fc.integer({ min: 1, max: 6 }),
    counts: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 3 }),
    homogeneous: fc.boolean(),
    seed: fc.array(fc.subarray([0, 1, 2], { minLength: 1 }), { minLength: 6, maxLength: 6 }),
  })
  .map(({ members, counts, homogeneous, seed }) => {
    const topicIds = counts.map((_, i) => `id${i}`);
    const list: AssignorMember[] = Array.from({ length: members }, (_, i) => ({
      memberId: `m${i}`,
      instanceId: null,
      topics: new Set(homogeneous ? topicIds : seed[i]!.filter((t) => t < counts.length).map((t) => `id${t}`)),
    }));
    return { members: list, partitionCounts: new Map(counts.map((c, i) => [`id${i}`, c])) };
  });

for (const [name, assignor] of [
  ['uniform', uniform],
  ['range', range],
] as const) {
  test(`the ${name} assignor gives every partition to exactly one subscribed member`, () => {
    fc.assert(
      fc.property(assignorInput, (input) => {
        const result = assignor({ ...input, previous: new Map() });
        for (const [topic, count] of input.partitionCounts) {
          const subscribers = input.members.filter((m) => m.topics.has(topic));
          for (let p = 0; p < count; p++) {
            const owners = [...result].filter(([, a]) => a.get(topic)?.has(p) === true).map(([id]) => id);
            assert.equal(owners.length, subscribers.length === 0 ? 0 : 1, `${topic}-${p}`);
            if (owners.length === 1) assert.ok(subscribers.some((m) => m.memberId === owners[0]));
          }
        }
      }),
    );
  });
}

test('the uniform assignor balances equal subscriptions and keeps partitions where they were', () => {
  fc.assert(
    fc.property(assignorInput, fc.integer({ min: 0, max: 5 }), (input, leaving) => {
      const members = input.members.map((m) => ({ ...m, topics: new Set(input.partitionCounts.keys()) }));
      const first = uniform({ members, partitionCounts: input.partitionCounts, previous: new Map() });
      const loads = [...first.values()].map(size);
      assert.ok(Math.max(...loads) - Math.min(...loads) <= 1, `loads ${loads.join(',')}`);
      // A member leaves: those that stay keep everything they had.
      if (members.length < 2) return;
      const gone = members[leaving % members.length]!.memberId;
      const rest = members.filter((m) => m.memberId !== gone);
      const second = uniform({ members: rest, partitionCounts: input.partitionCounts, previous: first });
      for (const m of rest) {
        for (const [t, s] of first.get(m.memberId)!) for (const p of s) assert.ok(second.get(m.memberId)!.get(t)?.has(p), `${m.memberId} lost ${t}-${p}`);
      }
      const after = [...second.values()].map(size);
      assert.ok(Math.max(...after) - Math.min(...after) <= 1);
    }),
  );
});
