/** What brook reads of the consumer protocol: the topics of a JoinGroup subscription, any version, and the partitions of an assignment. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assignedPartitions, subscriptionTopics } from '../src/groups/consumer-protocol.js';
import { Writer } from '../src/protocol/primitives/writer.js';

/** ConsumerProtocolSubscription: v0's topics and user data, then what later versions add (owned partitions, generation, rack). */
function subscription(version: number, topics: string[], userData: Buffer | null, tail: Buffer): Buffer {
  const w = new Writer();
  w.writeInt16(version);
  w.writeArrayLength(topics.length);
  for (const topic of topics) w.writeString(topic);
  w.writeNullableBytes(userData);
  w.writeBuffer(tail);
  return w.finish();
}

test('the topics of a subscription of any version are read from its v0 prefix', () => {
  const topic = fc.stringMatching(/^[a-zA-Z0-9._-]{1,20}$/);
  fc.assert(
    fc.property(
      fc.nat(3),
      fc.array(topic, { maxLength: 5 }),
      fc.option(fc.uint8Array({ maxLength: 8 }).map(Buffer.from), { nil: null }),
      fc.uint8Array({ maxLength: 12 }),
      (version, topics, userData, tail) => {
        assert.deepEqual(subscriptionTopics(subscription(version, topics, userData, Buffer.from(tail))), topics);
      },
    ),
  );
});

test('metadata that does not follow the schema reads as undefined, never throws', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
      const topics = subscriptionTopics(Buffer.from(bytes));
      assert.ok(topics === undefined || Array.isArray(topics));
    }),
  );
  assert.equal(subscriptionTopics(subscription(-1, ['t'], null, Buffer.alloc(0))), undefined, 'a negative version');
  assert.equal(subscriptionTopics(Buffer.from('sub')), undefined);
});

/** ConsumerProtocolAssignment, as kafkajs and Java consumers send it in SyncGroup: version, partitions by topic, user data. */
function assignment(version: number, topics: { topic: string; partitions: number[] }[], tail: Buffer): Buffer {
  const w = new Writer();
  w.writeInt16(version);
  w.writeArrayLength(topics.length);
  for (const { topic, partitions } of topics) {
    w.writeString(topic);
    w.writeArrayLength(partitions.length);
    for (const p of partitions) w.writeInt32(p);
  }
  w.writeNullableBytes(null);
  w.writeBuffer(tail);
  return w.finish();
}

test('the partitions of an assignment are read by topic; an empty or broken one reads as undefined', () => {
  const topic = fc.stringMatching(/^[a-zA-Z0-9._-]{1,20}$/);
  fc.assert(
    fc.property(
      fc.nat(3),
      fc.array(fc.record({ topic, partitions: fc.array(fc.nat(1000), { maxLength: 6 }) }, { noNullPrototype: true }), { maxLength: 4 }),
      (version, topics) => {
        assert.deepEqual(assignedPartitions(assignment(version, topics, Buffer.alloc(0))), topics);
      },
    ),
  );
  assert.equal(assignedPartitions(Buffer.alloc(0)), undefined);
  assert.equal(assignedPartitions(Buffer.from([0, 0, 0, 0, 0, 9])), undefined);
});
