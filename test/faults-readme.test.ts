import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type Broker } from 'brook';

let broker: Broker;
let kafka: Kafka;

before(async () => {
  broker = await startBroker();
  kafka = new Kafka({ clientId: 'payments-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
});

after(() => broker.close());

test('a payment whose acknowledgement was lost is stored once', { timeout: 30_000 }, async () => {
  // The next Produce to 'payments' is written, but its answer never arrives: the connection drops.
  const lostAck = broker.faults.add({ api: 'Produce', topic: 'payments', dropResponse: true, count: 1 });

  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  await producer.send({ topic: 'payments', messages: [{ key: 'order-1', value: 'paid' }] }); // retried once
  await producer.disconnect();
  assert.equal(lostAck.fired, 1);

  const admin = kafka.admin();
  await admin.connect();
  const [partition] = await admin.fetchTopicOffsets('payments');
  await admin.disconnect();
  assert.deepEqual([partition!.low, partition!.high], ['0', '1']); // one record, not two
});
