/**
 * The group store over a real `__consumer_offsets` in a temp directory: a sequence of changes to
 * consumer and classic groups, some groups deleted, reads back after reopening as the last state
 * each group was put in (the records that changed, and the tombstones of what went, written right).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ClassicGroup, Member } from '../src/groups/classic-group.js';
import { ConsumerGroup, type ConsumerMember, type MemberState } from '../src/groups/consumer-group.js';
import type { GroupStore } from '../src/groups/group-store.js';
import { openOffsetsTopic } from '../src/groups/offsets-topic.js';
import { closeAtEnd, tempDir } from './helpers/log.js';
import { openOffsetsLog } from './helpers/offsets-log.js';
import { recordingLog } from './helpers/offset-traffic.js';

const TOPICS = ['6f1e6a4c-1c0b-4d39-9a51-0c3f1b6f6a01', '0a7d1f3e-5b2c-4e8f-8d6a-2b9c3e4f5a02'];

const partitions = fc.uniqueArray(fc.integer({ min: 0, max: 7 }), { maxLength: 4 });
const topicPartitions = fc.tuple(partitions, partitions).map(
  ([a, b]) =>
    new Map(
      [
        [TOPICS[0]!, new Set(a)],
        [TOPICS[1]!, new Set(b)],
      ].filter(([, set]) => (set as Set<number>).size > 0) as [string, Set<number>][],
    ),
);

const member = fc.record({
  memberId: fc.constantFrom('m1', 'm2', 'm3', 'm4'),
  instanceId: fc.option(fc.string({ maxLength: 5 })),
  rackId: fc.option(fc.string({ maxLength: 5 })),
  clientId: fc.string({ maxLength: 8 }),
  rebalanceTimeoutMs: fc.integer({ min: 0, max: 300_000 }),
  subscribedTopicNames: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
  subscribedTopicRegex: fc.option(fc.string({ maxLength: 6 })),
  serverAssignor: fc.option(fc.constantFrom('uniform', 'range')),
  memberEpoch: fc.integer({ min: -2, max: 50 }),
  previousMemberEpoch: fc.integer({ min: -1, max: 50 }),
  state: fc.constantFrom<MemberState>('stable', 'unrevoked_partitions', 'unreleased_partitions'),
  assigned: topicPartitions,
  pendingRevocation: topicPartitions,
  target: topicPartitions,
  classic: fc.option(
    fc.record({
      sessionTimeoutMs: fc.integer({ min: 1, max: 300_000 }),
      supportedProtocols: fc.array(fc.record({ name: fc.constantFrom('range', 'cooperative-sticky'), metadata: fc.uint8Array({ maxLength: 6 }) }), {
        minLength: 1,
        maxLength: 2,
      }),
    }),
  ),
});

/** A consumer group in some state: what putConsumer is given. */
const consumerGroup = fc.record({
  groupEpoch: fc.integer({ min: 0, max: 100 }),
  assignmentEpoch: fc.integer({ min: 0, max: 100 }),
  subscribedPartitions: fc.uniqueArray(fc.tuple(fc.constantFrom(...TOPICS), fc.integer({ min: 1, max: 8 })), { selector: ([t]) => t }),
  members: fc.uniqueArray(member, { selector: (m) => m.memberId, maxLength: 4 }),
});

type ConsumerGroupState = typeof consumerGroup extends fc.Arbitrary<infer T> ? T : never;

/** A classic group in some state: generation, protocol and members, or Empty. */
const classicGroup = fc.record({
  generation: fc.integer({ min: 0, max: 100 }),
  members: fc.uniqueArray(
    fc.record({
      memberId: fc.constantFrom('c1', 'c2', 'c3'),
      protocols: fc.uniqueArray(fc.record({ name: fc.constantFrom('range', 'roundrobin', 'sticky'), metadata: fc.uint8Array({ maxLength: 6 }) }), {
        selector: (p) => p.name,
        minLength: 1,
        maxLength: 3,
      }),
      assignment: fc.uint8Array({ maxLength: 6 }),
    }),
    { selector: (m) => m.memberId, maxLength: 3 },
  ),
});

type ClassicGroupState = typeof classicGroup extends fc.Arbitrary<infer T> ? T : never;

function buildConsumer(groupId: string, s: ConsumerGroupState): ConsumerGroup {
  const group = new ConsumerGroup(groupId);
  group.groupEpoch = s.groupEpoch;
  group.assignmentEpoch = s.assignmentEpoch;
  group.subscribedPartitions = new Map(s.subscribedPartitions);
  for (const m of s.members) {
    const assignmentEpochs = new Map<string, Map<number, number>>();
    for (const owned of [m.assigned, m.pendingRevocation]) {
      for (const [topic, set] of owned) for (const p of set) assignmentEpochs.set(topic, (assignmentEpochs.get(topic) ?? new Map()).set(p, m.memberEpoch));
    }
    const { target, classic, ...fields } = m;
    const restored: ConsumerMember = {
      ...fields,
      clientHost: '/127.0.0.1',
      subscribedTopicNames: [...m.subscribedTopicNames],
      assignmentEpochs,
      classic:
        classic === null
          ? null
          : {
              sessionTimeoutMs: classic.sessionTimeoutMs,
              supportedProtocols: classic.supportedProtocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })),
            },
    };
    group.restoreMember(restored);
    group.target.set(m.memberId, target);
  }
  return group;
}

function buildClassic(groupId: string, s: ClassicGroupState): ClassicGroup {
  const group = new ClassicGroup(groupId, () => 1_700_000_000_000);
  for (const m of s.members) {
    const member = new Member(
      m.memberId,
      null,
      'client',
      '/127.0.0.1',
      60_000,
      30_000,
      m.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })),
    );
    member.assignment = Buffer.from(m.assignment);
    group.members.set(m.memberId, member);
  }
  group.generationId = s.generation;
  group.protocolType = s.members.length > 0 ? 'consumer' : null;
  // The chosen protocol is one every member offered, as a rebalance chooses it.
  group.protocolName = s.members.length > 0 ? s.members[0]!.protocols[0]!.name : null;
  for (const m of group.members.values())
    if (!m.protocols.some((p) => p.name === group.protocolName)) m.protocols = [...m.protocols, { name: group.protocolName!, metadata: Buffer.from('x') }];
  group.leaderId = s.members[0]?.memberId ?? null;
  group.state = group.members.size > 0 ? 'Stable' : 'Empty';
  return group;
}

/** What a consumer group holds, comparable. */
function consumerView(g: ConsumerGroup): unknown {
  const list = (tp: Map<string, Set<number>>) =>
    [...tp]
      .filter(([, s]) => s.size > 0)
      .map(([t, s]) => [t, [...s].sort()])
      .sort();
  return {
    epochs: [g.groupEpoch, g.assignmentEpoch],
    subscribed: [...g.subscribedPartitions].sort(),
    members: [...g.members.values()]
      .map((m) => ({
        ...m,
        assigned: list(m.assigned),
        pendingRevocation: list(m.pendingRevocation),
        assignmentEpochs: [...m.assignmentEpochs]
          .filter(([, e]) => e.size > 0)
          .map(([t, e]) => [t, [...e].sort()])
          .sort(),
        target: list(g.target.get(m.memberId) ?? new Map()),
        classic: m.classic === null ? null : [m.classic.sessionTimeoutMs, m.classic.supportedProtocols.map((p) => [p.name, p.metadata.toString('hex')])],
      }))
      .sort((a, b) => a.memberId.localeCompare(b.memberId)),
  };
}

function classicView(g: ClassicGroup): unknown {
  return {
    generation: g.generationId,
    protocol: [g.protocolType, g.protocolName, g.leaderId, g.state],
    members: [...g.members.values()].map((m) => [m.memberId, m.protocols.map((p) => [p.name, p.metadata.toString('hex')]), m.assignment.toString('hex')]),
  };
}

type Step =
  | { kind: 'consumer'; group: number; state: ConsumerGroupState }
  | { kind: 'classic'; group: number; state: ClassicGroupState }
  | { kind: 'remove'; group: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  // Groups 2 and 3 may be put as either kind, as a group changing protocol is.
  fc.record({ kind: fc.constant('consumer' as const), group: fc.integer({ min: 0, max: 3 }), state: consumerGroup }),
  fc.record({ kind: fc.constant('classic' as const), group: fc.integer({ min: 2, max: 4 }), state: classicGroup }),
  fc.record({ kind: fc.constant('remove' as const), group: fc.integer({ min: 0, max: 4 }) }),
);

test('groups put, removed and changed from one kind to the other read back after reopening as their last state', async (t) => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
      const dir = await tempDir(t);
      const open = async (): Promise<{ store: GroupStore; close: () => Promise<void> }> => {
        const offsets = await openOffsetsLog(dir, { offsetsTopicNumPartitions: 3 });
        const { groups } = await openOffsetsTopic(dir, offsets.log, { report: recordingLog(), now: () => 1_700_000_000_000, onGroupError: () => {} });
        return closeAtEnd(t, { store: groups, close: () => offsets.close() });
      };
      const first = await open();
      const model = new Map<string, unknown>();
      for (const s of steps) {
        const groupId = `g${s.group}`;
        if (s.kind === 'remove') {
          first.store.remove(groupId);
          model.delete(groupId);
        } else if (s.kind === 'consumer') {
          const group = buildConsumer(groupId, s.state);
          await first.store.putConsumer(group);
          model.set(groupId, consumerView(group));
        } else {
          const group = buildClassic(groupId, s.state);
          await first.store.put(group);
          model.set(groupId, classicView(group));
        }
      }
      await first.store.close();
      await first.close();
      const second = await open();
      const read = new Map<string, unknown>();
      for (const g of second.store.takeGroups()) read.set(g.groupId, classicView(g));
      for (const g of second.store.takeConsumerGroups()) read.set(g.groupId, consumerView(g));
      await second.close();
      assert.deepEqual(read, model);
    }),
    { numRuns: 25 },
  );
});
