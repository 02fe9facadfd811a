import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type Broker } from 'brook';

let broker: Broker;
let kafka: Kafka;

before(async () => {
  broker = await startBroker(); // a free port and a temporary data directory
  kafka = new Kafka({ clientId: 'orders-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
});

after(() => broker.close());

test('an order event reaches its consumer', { timeout: 30_000 }, async () => {
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ key: 'order-1', value: 'created' }] });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: 'billing', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'orders', fromBeginning: true });
  const received = new Promise<string>((resolve) => {
    void consumer.run({ eachMessage: async ({ message }) => resolve(String(message.value)) });
  });
  assert.equal(await received, 'created');
  await consumer.disconnect();
});
