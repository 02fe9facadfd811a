/**
 * The simulated cluster's leadership rules against a small model: random leader moves, node stops
 * and starts, appends in between. Every partition always has exactly one leader, a live node among
 * its replicas; its leader epoch grows by one at each change of leader and never otherwise; each
 * earlier epoch ends where the next began.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { epochEnd, Leadership } from '../src/cluster/leadership.js';
import { coordinatorPartition, placeReplicas } from '../src/cluster/placement.js';

type Op =
  | { readonly kind: 'move'; readonly partition: number; readonly node: number }
  | { readonly kind: 'stop'; readonly node: number }
  | { readonly kind: 'start'; readonly node: number }
  | { readonly kind: 'append'; readonly partition: number; readonly records: number };

const op = (nodes: number, partitions: number): fc.Arbitrary<Op> =>
  fc.oneof(
    fc.record({ kind: fc.constant('move' as const), partition: fc.nat(partitions - 1), node: fc.integer({ min: 1, max: nodes }) }),
    fc.record({ kind: fc.constant('stop' as const), node: fc.integer({ min: 1, max: nodes }) }),
    fc.record({ kind: fc.constant('start' as const), node: fc.integer({ min: 1, max: nodes }) }),
    fc.record({ kind: fc.constant('append' as const), partition: fc.nat(partitions - 1), records: fc.integer({ min: 1, max: 5 }) }),
  );

const scenario = fc
  .record({ nodes: fc.integer({ min: 1, max: 4 }), partitions: fc.integer({ min: 1, max: 6 }), replicationFactor: fc.integer({ min: 1, max: 4 }) })
  .chain(({ nodes, partitions, replicationFactor }) =>
    fc.record({
      nodes: fc.constant(nodes),
      partitions: fc.constant(partitions),
      replicationFactor: fc.constant(Math.min(replicationFactor, nodes)),
      ops: fc.array(op(nodes, partitions), { maxLength: 60 }),
    }),
  );

test('every partition has one live leader among its replicas, and its epoch grows by one at each change of leader', () => {
  fc.assert(
    fc.property(scenario, ({ nodes, partitions, replicationFactor, ops }) => {
      const ids = Array.from({ length: nodes }, (_, i) => i + 1);
      const leadership = new Leadership(ids);
      leadership.setReplicationFactor('t', replicationFactor);
      // The model: which nodes are up, each partition's log end, leader and the log end where each epoch began.
      const live = new Set(ids);
      const logEnd = Array<number>(partitions).fill(0);
      const leaders = Array.from({ length: partitions }, (_, i) => leadership.partition('t', i).leader);
      const starts: number[][] = Array.from({ length: partitions }, () => [0]);
      for (const o of ops) {
        if (o.kind === 'append') logEnd[o.partition]! += o.records;
        else if (o.kind === 'move') {
          if (!live.has(o.node)) {
            assert.throws(() => leadership.moveLeader('t', o.partition, o.node, logEnd[o.partition]!), RangeError);
            continue;
          }
          leadership.moveLeader('t', o.partition, o.node, logEnd[o.partition]!);
          if (leaders[o.partition] !== o.node) starts[o.partition]!.push(logEnd[o.partition]!);
          leaders[o.partition] = o.node;
        } else if (o.kind === 'stop') {
          if (live.has(o.node) && live.size === 1) {
            assert.throws(() => leadership.stop(o.node, (_, i) => logEnd[i]!), /last live node/);
            continue;
          }
          leadership.stop(o.node, (_, i) => logEnd[i]!);
          if (live.delete(o.node))
            for (let i = 0; i < partitions; i++) {
              if (leaders[i] !== o.node) continue;
              leaders[i] = leadership.partition('t', i).leader;
              starts[i]!.push(logEnd[i]!);
            }
        } else {
          leadership.start(o.node);
          live.add(o.node);
        }
        for (let i = 0; i < partitions; i++) {
          const p = leadership.partition('t', i);
          assert.ok(live.has(p.leader), `partition ${i} is led by live node ${p.leader}`);
          assert.ok(p.replicas.includes(p.leader));
          assert.equal(new Set(p.replicas).size, p.replicas.length);
          assert.equal(p.leader, leaders[i]);
          assert.equal(p.epoch, starts[i]!.length - 1);
          assert.deepEqual(
            leadership.isr(p),
            p.replicas.filter((n) => live.has(n)),
          );
        }
      }
      for (let i = 0; i < partitions; i++) {
        const p = leadership.partition('t', i);
        // Each epoch ends where the next began; the current one at the log end; later ones are unknown.
        for (let e = 0; e <= p.epoch; e++) {
          const end = e === p.epoch ? logEnd[i]! : starts[i]![e + 1]!;
          assert.deepEqual(epochEnd(p, e, 0, logEnd[i]!), { leaderEpoch: e, endOffset: end });
        }
        assert.deepEqual(epochEnd(p, p.epoch + 1, 0, logEnd[i]!), { leaderEpoch: -1, endOffset: -1 });
      }
      // A new start takes back every partition's replicas, leader and epochs, its state gone through JSON as stored.
      const restarted = new Leadership(ids);
      const changes = restarted.changes;
      restarted.restore(JSON.parse(JSON.stringify(leadership.state())) as ReturnType<Leadership['state']>);
      assert.ok(restarted.changes > changes, 'restoring is a change');
      assert.deepEqual([...restarted.placed()], [...leadership.placed()]);
      assert.throws(() => new Leadership([...ids, nodes + 1]).restore(leadership.state()), RangeError);
    }),
  );
});

test('replicas are striped as Kafka places them: leaders round the nodes, each lap shifting the followers', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 6 }), (n, partitions, rf) => {
      const nodes = Array.from({ length: n }, (_, i) => i + 1);
      const replicationFactor = Math.min(rf, n);
      for (let p = 0; p < partitions; p++) {
        const replicas = placeReplicas(nodes, p, replicationFactor);
        assert.equal(replicas.length, replicationFactor);
        assert.equal(new Set(replicas).size, replicationFactor, 'no node twice');
        assert.equal(replicas[0], nodes[p % n]);
        // The first follower sits 1 + (lap mod n-1) places after the leader.
        if (replicationFactor > 1) assert.equal(replicas[1], nodes[(p + 1 + (Math.floor(p / n) % (n - 1))) % n]);
      }
    }),
  );
});

test("coordinators' partitions follow Java's String.hashCode", () => {
  // Known values of String.hashCode: "" 0, "a" 97, "hello" 99162322, "polygenelubricants" Integer.MIN_VALUE (taken to 0).
  assert.equal(coordinatorPartition('', 50), 0);
  assert.equal(coordinatorPartition('a', 50), 97 % 50);
  assert.equal(coordinatorPartition('hello', 50), 99162322 % 50);
  assert.equal(coordinatorPartition('polygenelubricants', 50), 0);
});
