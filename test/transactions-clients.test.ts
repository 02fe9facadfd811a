/** kafkajs's transactional producer against the real broker, read back by kafkajs consumers of both isolation levels. */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Kafka } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { kafkajs } from './helpers/kafkajs.js';
import { until } from './helpers/until.js';
import { TRANSACTION_PROFILES } from './helpers/transaction-profiles.js';

for (const { protocol, kafkaVersion } of TRANSACTION_PROFILES) {
  describe(`transactions ${protocol} (--kafka-version ${kafkaVersion})`, () => {
    let broker: Broker;
    let kafka: Kafka;

    before(async () => {
      broker = await startBroker({ kafkaVersion });
      kafka = kafkajs(`127.0.0.1:${broker.port}`);
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'eos-out', numPartitions: 2 }, { topic: 'eos-in' }] });
      await admin.disconnect();
    });

    after(async () => {
      await broker.close();
    });

    /** Every value in the topic, read from the beginning by a consumer of the isolation level, until `count` came and no more for a moment. */
    async function readValues(topic: string, readUncommitted: boolean, count: number): Promise<string[]> {
      const consumer = kafka.consumer({ groupId: `reader-${topic}-${readUncommitted}-${Math.random()}`, readUncommitted, maxWaitTimeInMs: 50 });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const values: string[] = [];
      await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value!.toString()) });
      try {
        await until(() => values.length >= count, `${count} values read`);
        // Long enough for records that should not be there to arrive.
        await new Promise((resolve) => setTimeout(resolve, 300));
      } finally {
        await consumer.disconnect();
      }
      return values.sort();
    }

    test('kafkajs transactions: send and sendOffsets commit together; an aborted transaction is invisible to read_committed', async () => {
      const producer = kafka.producer({ transactionalId: 'kafkajs-eos', idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      try {
        const committed = await producer.transaction();
        await committed.send({ topic: 'eos-out', messages: [0, 1, 2, 3].map((i) => ({ key: `k${i}`, value: `kept-${i}` })) });
        await committed.sendOffsets({ consumerGroupId: 'eos-group', topics: [{ topic: 'eos-in', partitions: [{ partition: 0, offset: '42' }] }] });
        await committed.commit();

        const aborted = await producer.transaction();
        await aborted.send({ topic: 'eos-out', messages: [0, 1, 2].map((i) => ({ key: `k${i}`, value: `dropped-${i}` })) });
        await aborted.sendOffsets({ consumerGroupId: 'eos-group', topics: [{ topic: 'eos-in', partitions: [{ partition: 0, offset: '99' }] }] });
        await aborted.abort();
      } finally {
        await producer.disconnect();
      }
      const kept = ['kept-0', 'kept-1', 'kept-2', 'kept-3'];
      assert.deepEqual(await readValues('eos-out', false, 4), kept);
      assert.deepEqual(await readValues('eos-out', true, 7), [...['dropped-0', 'dropped-1', 'dropped-2'], ...kept]);
      const admin = kafka.admin();
      await admin.connect();
      try {
        const offsets = await admin.fetchOffsets({ groupId: 'eos-group', topics: ['eos-in'] });
        assert.equal(offsets[0]!.partitions[0]!.offset, '42', 'only the committed transaction’s offset');
      } finally {
        await admin.disconnect();
      }
    });

    test('kafkajs: a second producer of the same transactional id fences the first', async () => {
      const first = kafka.producer({ transactionalId: 'kafkajs-zombie', idempotent: true, maxInFlightRequests: 1 });
      await first.connect();
      const open = await first.transaction();
      await open.send({ topic: 'eos-out', messages: [{ value: 'zombie' }] });
      const second = kafka.producer({ transactionalId: 'kafkajs-zombie', idempotent: true, maxInFlightRequests: 1 });
      await second.connect();
      try {
        // kafkajs asks for the transactional id's producer id at its first transaction.
        const t = await second.transaction();
        await assert.rejects(open.commit(), (err: Error & { type?: string }) => ['PRODUCER_FENCED', 'INVALID_PRODUCER_EPOCH'].includes(err.type ?? ''));
        await t.send({ topic: 'eos-out', messages: [{ value: 'successor' }] });
        await t.commit();
      } finally {
        await Promise.all([first.disconnect(), second.disconnect()]);
      }
    });

    test('kafkajs: a transaction open across a broker restart carries on and commits; read_committed sees every record once', async () => {
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'across-restart', numPartitions: 2 }] });
      await admin.disconnect();
      const producer = kafka.producer({ transactionalId: 'kafkajs-restart', idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      const values = (from: number) => Array.from({ length: 100 }, (_, i) => ({ key: `k${from + i}`, value: `r-${String(from + i).padStart(3, '0')}` }));
      try {
        const txn = await producer.transaction();
        await txn.send({ topic: 'across-restart', messages: values(0) });
        await broker.restart();
        await txn.send({ topic: 'across-restart', messages: values(100) });
        await txn.commit();
      } finally {
        await producer.disconnect();
      }
      const expected = [...values(0), ...values(100)].map((m) => m.value);
      assert.deepEqual(await readValues('across-restart', false, 200), expected);
      assert.deepEqual(await readValues('across-restart', true, 200), expected, 'no record written twice');
    });
  });
}
