import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Producer as PlatformaticProducer } from './helpers/platformatic.js';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { consumeAll, kafkajs, type Consumed } from './helpers/kafkajs.js';

let broker: Broker;
before(async () => {
  broker = await startBroker({ port: 0, partitions: 4 });
});
after(async () => {
  await broker.close();
});

/** Each value exactly once; within a partition, offsets 0, 1, 2, … in the order sent. */
function assertExactlyOnceInOrder(seen: Consumed[], sentPerPartition: Map<number, string[]>): void {
  const total = [...sentPerPartition.values()].reduce((n, v) => n + v.length, 0);
  assert.equal(seen.length, total);
  for (const [partition, values] of sentPerPartition) {
    const mine = seen.filter((m) => m.partition === partition);
    assert.deepEqual(
      mine.map((m) => m.value),
      values,
      `partition ${partition}`,
    );
    assert.deepEqual(
      mine.map((m) => m.offset),
      values.map((_, i) => i),
    );
  }
}

test('kafkajs: an idempotent producer writes thousands of messages over 4 partitions, read back once each, in order', async () => {
  const kafka = kafkajs(broker.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'kjs-idem', numPartitions: 4 }] });
  await admin.disconnect();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const sent = new Map<number, string[]>([0, 1, 2, 3].map((p) => [p, []]));
  for (let chunk = 0; chunk < 30; chunk++) {
    const messages = Array.from({ length: 100 }, (_, i) => {
      const n = chunk * 100 + i;
      return { partition: n % 4, value: `m${n}` };
    });
    for (const m of messages) sent.get(m.partition)!.push(m.value);
    const results = await producer.send({ topic: 'kjs-idem', acks: -1, messages });
    for (const r of results) assert.equal(r.errorCode, 0);
  }
  await producer.disconnect();
  assertExactlyOnceInOrder(await consumeAll(kafka, 'kjs-idem', 'kjs-idem-reader', 3000), sent);
});

test('kafkajs: a plain producer and acks=0 keep working', async () => {
  const kafka = kafkajs(broker.bootstrap);
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  await producer.send({
    topic: 'kjs-plain',
    messages: [
      { partition: 0, value: 'a' },
      { partition: 0, value: 'b' },
    ],
  });
  await producer.send({ topic: 'kjs-plain', acks: 0, messages: [{ partition: 0, value: 'c' }] });
  await producer.send({ topic: 'kjs-plain', acks: 1, messages: [{ partition: 0, value: 'd' }] });
  await producer.disconnect();
  const seen = await consumeAll(kafka, 'kjs-plain', 'kjs-plain-reader', 4);
  assert.deepEqual(
    seen.map((m) => [m.partition, m.offset, m.value]),
    [
      [0, 0, 'a'],
      [0, 1, 'b'],
      [0, 2, 'c'],
      [0, 3, 'd'],
    ],
  );
});

test('@platformatic/kafka: an idempotent producer writes to several partitions with consecutive offsets', async () => {
  const producer = new PlatformaticProducer({ clientId: 'plt', bootstrapBrokers: [broker.bootstrap], idempotent: true, autocreateTopics: true });
  try {
    const offsets = new Map<number, bigint[]>();
    for (let round = 0; round < 20; round++) {
      const result = await producer.send({
        messages: [0, 1, 2].map((partition) => ({ topic: 'plt-idem', partition, value: Buffer.from(`r${round}p${partition}`) })),
      });
      for (const o of result.offsets ?? []) offsets.set(o.partition, [...(offsets.get(o.partition) ?? []), o.offset]);
    }
    assert.ok(producer.producerId !== undefined && producer.producerId > 0n);
    for (const [, list] of offsets)
      assert.deepEqual(
        list,
        list.map((_, i) => BigInt(i)),
      );
  } finally {
    await producer.close();
  }
  const seen = await consumeAll(kafkajs(broker.bootstrap), 'plt-idem', 'plt-reader', 20 * 3);
  assert.equal(new Set(seen.map((m) => m.value)).size, 60);
});
