/**
 * ListOffsets under read_committed through kafkajs, whose admin asks with that isolation level:
 * the earliest is the log start, even where it is also the last stable offset.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Kafka } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { kafkajs } from './helpers/kafkajs.js';
import { until } from './helpers/until.js';

let broker: Broker;
let kafka: Kafka;

before(async () => {
  broker = await startBroker();
  kafka = kafkajs(broker.bootstrap);
});

after(async () => {
  await broker.close();
});

async function offsets(topic: string): Promise<{ low: string; high: string }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [partition] = await admin.fetchTopicOffsets(topic);
    return { low: partition!.low, high: partition!.high };
  } finally {
    await admin.disconnect();
  }
}

test('kafkajs fetchTopicOffsets (read_committed) of an empty partition: earliest and latest are both 0', async () => {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'lo-empty' }] });
  await admin.disconnect();
  assert.deepEqual(await offsets('lo-empty'), { low: '0', high: '0' });
});

test('kafkajs fetchTopicOffsets (read_committed) with an open transaction at the log start: earliest is the log start, latest the LSO', async () => {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'lo-open-txn' }] });
  const plain = kafka.producer();
  await plain.connect();
  await plain.send({ topic: 'lo-open-txn', messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
  await plain.disconnect();
  // The log start moves to 3, so the log start is told apart from offset 0. (kafkajs finds the
  // partition's leader only among the topics its metadata has looked up.)
  await admin.fetchTopicMetadata({ topics: ['lo-open-txn'] });
  await admin.deleteTopicRecords({ topic: 'lo-open-txn', partitions: [{ partition: 0, offset: '3' }] });
  await admin.disconnect();

  const producer = kafka.producer({ transactionalId: 'lo-open-txn', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const txn = await producer.transaction();
    await txn.send({ topic: 'lo-open-txn', messages: [{ value: 'd' }, { value: 'e' }] });
    // Offsets 3 and 4 are in the open transaction: the last stable offset stays at the log start.
    assert.deepEqual(await offsets('lo-open-txn'), { low: '3', high: '3' });
    await txn.commit();
  } finally {
    await producer.disconnect();
  }
  // The two records and the commit marker are stable once the marker is written (Kafka may write
  // it after answering EndTxn).
  await until(async () => (await offsets('lo-open-txn')).high === '6', 'the committed transaction is stable');
  assert.deepEqual(await offsets('lo-open-txn'), { low: '3', high: '6' });
});
