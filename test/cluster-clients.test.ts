/**
 * Real clients against three nodes while leaders move and a node stops and starts again, each
 * change made by the test between two sends: kafkajs's idempotent producer follows the leaders
 * (NOT_LEADER_OR_FOLLOWER, a metadata refresh, a retry), its consumer group follows its
 * coordinator, and every acknowledged record is in the log once, where it was acknowledged;
 * @platformatic/kafka likewise.
 * A producer's retry that reaches the new leader is answered with the original offset.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../src/protocol/messages/init-producer-id.js';
import { describeTally, tally, type Placed } from './helpers/exactly-once.js';
import { kafkajs } from './helpers/kafkajs.js';
import { until } from './helpers/until.js';
import { valuesBatch } from './helpers/batch.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';
import { Consumer, MessagesStreamModes, Producer, stringDeserializers, stringSerializers } from './helpers/platformatic.js';

let broker: Broker;

before(async () => {
  broker = await startBroker({ nodes: 3 });
});

after(() => broker.close());

test('kafkajs: an idempotent producer and a consumer group lose and repeat nothing while leaders move and a node stops', { timeout: 120_000 }, async () => {
  const kafka = kafkajs(broker.bootstrap, 'moving-leaders');
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 3, replicationFactor: 3 }] });
  await admin.disconnect();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  // Java's "hello".hashCode() puts this group's coordinator on node 2, which the test stops.
  const consumer = kafka.consumer({ groupId: 'hello', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'orders', fromBeginning: true });
  const read = new Map<string, Placed>();
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      // A record read again after a rebalance is the consumer's repeat, not the log's: each offset counts once.
      read.set(`${partition}@${message.offset}`, [partition, Number(message.offset), String(message.value)]);
    },
  });
  // Each value sent, by its partition, and the offset kafkajs answered for it. Each send() names
  // one partition: kafkajs 2.2's `sendMessages` keeps answers by broker, so a send() whose
  // partitions span brokers drops a partition retried to a broker that had already answered.
  const sent = new Map<string, { partition: number; offset: number }>();
  const sends = 90;
  for (let i = 0; i < sends; i++) {
    const partition = i % 3;
    const messages = [0, 1].map((k) => ({ partition, value: `v${i}-${k}` }));
    const [answer] = await producer.send({ topic: 'orders', messages });
    for (const [k, m] of messages.entries()) sent.set(m.value, { partition, offset: Number(answer!.baseOffset) + k });
    const live = broker.cluster.nodes.filter((n) => n.live).map((n) => n.nodeId);
    if (i % 4 === 0) {
      const leader = broker.cluster.leaderOf('orders', partition);
      broker.cluster.moveLeader('orders', partition, live[(live.indexOf(leader) + 1) % live.length]!);
    }
    if (i === 30) await broker.cluster.stopNode(2);
    if (i === 60) await broker.cluster.startNode(2);
  }
  const readValues = (): Set<string> => new Set([...read.values()].map(([, , v]) => v));
  await until(() => readValues().size >= sent.size, 'the consumer read every acknowledged record', 60_000);
  await consumer.disconnect();
  await producer.disconnect();
  const acked: Placed[] = [...sent].map(([v, { partition, offset }]) => [partition, offset, v]);
  const t = tally(acked, [...read.values()]);
  assert.equal(t.acked, sends * 2);
  assert.deepEqual([t.losses, t.duplicates, t.misplaced, t.unacked], [0, 0, 0, 0], describeTally(t));
});

/** Moves the leader of `partition` of `topic` to the next live node. */
function moveOn(topic: string, partition: number): void {
  const live = broker.cluster.nodes.filter((n) => n.live).map((n) => n.nodeId);
  const leader = broker.cluster.leaderOf(topic, partition);
  broker.cluster.moveLeader(topic, partition, live[(live.indexOf(leader) + 1) % live.length]!);
}

test(
  '@platformatic/kafka: an idempotent producer loses and repeats nothing while leaders move and a node stops; a group then reads each once',
  { timeout: 120_000 },
  async () => {
    const admin = kafkajs(broker.bootstrap, 'platformatic-admin').admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'plt-orders', numPartitions: 3, replicationFactor: 3 }] });
    await admin.disconnect();
    const producer = new Producer({
      clientId: 'plt-moving',
      bootstrapBrokers: [...broker.cluster.bootstraps],
      serializers: stringSerializers,
      idempotent: true,
      retries: 10,
      retryDelay: 20,
    });
    const acked: Placed[] = [];
    const sends = 90;
    const consumer = new Consumer({
      groupId: 'plt-moving-readers',
      clientId: 'plt-moving-reader',
      bootstrapBrokers: [...broker.cluster.bootstraps],
      deserializers: stringDeserializers,
      maxWaitTime: 100,
      retries: 10,
      retryDelay: 50,
    });
    const read = new Map<string, Placed>();
    // The consumer reads once the leaders have stopped moving: @platformatic/kafka 2.12 ends its
    // stream when a node it fetches from leaves the cluster, and its fetches retry a partition's
    // old leader without asking for metadata again.
    let stream: Awaited<ReturnType<typeof consumer.consume>> | undefined;
    try {
      for (let i = 0; i < sends; i++) {
        const partition = i % 3;
        const { offsets } = await producer.send({ messages: [{ topic: 'plt-orders', partition, value: `p${i}` }] });
        acked.push([partition, Number(offsets![0]!.offset), `p${i}`]);
        if (i % 4 === 0) moveOn('plt-orders', partition);
        if (i === 30) await broker.cluster.stopNode(3);
        if (i === 60) await broker.cluster.startNode(3);
      }
      stream = await consumer.consume({
        topics: ['plt-orders'],
        mode: MessagesStreamModes.EARLIEST,
        autocommit: true,
        sessionTimeout: 10_000,
        heartbeatInterval: 500,
      });
      stream.on('data', (message: { partition: number; offset: bigint; value: string }) => {
        read.set(`${message.partition}@${message.offset}`, [message.partition, Number(message.offset), message.value]);
      });
      await until(() => acked.every(([p, o]) => read.has(`${p}@${o}`)), 'the consumer read every acknowledged record', 60_000);
    } finally {
      await producer.close();
      await stream?.close();
      await consumer.close(true);
    }
    const t = tally(acked, [...read.values()]);
    assert.deepEqual([t.acked, t.losses, t.duplicates, t.misplaced, t.unacked], [sends, 0, 0, 0, 0], describeTally(t));
  },
);

test("a batch retried to the partition's new leader is a duplicate, answered with its first offset", async () => {
  const connect = (nodeId: number) => WireClient.connect(Number(broker.cluster.nodes[nodeId - 1]!.bootstrap.split(':')[1]));
  const first = await connect(1);
  await createTopic(first, 'retried', 1);
  const second = await connect(2);
  try {
    const init = await first.request(InitProducerIdRequest, InitProducerIdResponse, 4, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    const batch = valuesBatch(3, { producerId: init.producerId, producerEpoch: init.producerEpoch, baseSequence: 0 });
    const original = await produceBatch(first, 'retried', 0, batch);
    assert.equal(original.errorCode, 0);
    broker.cluster.moveLeader('retried', 0, 2);
    // The acknowledgement lost, the producer sends the same batch to the new leader.
    assert.deepEqual(await produceBatch(second, 'retried', 0, batch), original);
    assert.equal((await produceBatch(first, 'retried', 0, batch)).errorCode, 6, 'NOT_LEADER_OR_FOLLOWER at the old leader');
  } finally {
    first.close();
    second.close();
  }
});
