/**
 * kafkajs and @platformatic/kafka produce, consume and run transactions against brook under every
 * `--kafka-version` profile: each negotiates its versions from what the profile advertises.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { KAFKA_VERSIONS } from '../src/protocol/kafka-releases.js';
import { consumeUntil } from './helpers/kafkajs.js';
import { Consumer, FetchIsolationLevels, MessagesStreamModes, Producer, stringDeserializers, stringSerializers } from './helpers/platformatic.js';

const LAST = 'last';
/** Each transaction's one value, and whether it is committed. */
const ROUNDS = [
  ['committed', true],
  ['aborted', false],
  [LAST, true],
] as const;

/** kafkajs: plain and idempotent sends, a committed, an aborted and a last committed transaction; read_committed reads up to the last. */
async function kafkajsRound(broker: Broker, topic: string): Promise<string[]> {
  const kafka = new Kafka({ clientId: 'profiles', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
  await admin.disconnect();
  const plain = kafka.producer({ idempotent: true });
  await plain.connect();
  await plain.send({ topic, messages: [{ value: 'idempotent' }] });
  await plain.disconnect();
  const producer = kafka.producer({ transactionalId: `${topic}-txn`, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (const [value, commit] of ROUNDS) {
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value }] });
    await (commit ? txn.commit() : txn.abort());
  }
  await producer.disconnect();
  const read = await consumeUntil(kafka, topic, `${topic}-reader`, (seen) => seen.at(-1)?.value === LAST);
  return read.map((m) => m.value);
}

/** @platformatic/kafka: the same round. */
async function platformaticRound(broker: Broker, topic: string): Promise<string[]> {
  const plain = new Producer({
    clientId: 'profiles',
    bootstrapBrokers: [broker.bootstrap],
    serializers: stringSerializers,
    idempotent: true,
    autocreateTopics: true,
  });
  try {
    await plain.send({ messages: [{ topic, value: 'idempotent' }] });
  } finally {
    await plain.close();
  }
  const producer = new Producer({
    clientId: 'profiles-txn',
    bootstrapBrokers: [broker.bootstrap],
    serializers: stringSerializers,
    idempotent: true,
    transactionalId: `${topic}-txn`,
  });
  try {
    for (const [value, commit] of ROUNDS) {
      const txn = await producer.beginTransaction();
      await txn.send({ messages: [{ topic, value }] });
      await (commit ? txn.commit() : txn.abort());
    }
  } finally {
    await producer.close();
  }
  const consumer = new Consumer({
    groupId: `${topic}-reader`,
    clientId: `${topic}-reader`,
    bootstrapBrokers: [broker.bootstrap],
    deserializers: stringDeserializers,
    maxWaitTime: 50,
    isolationLevel: FetchIsolationLevels.READ_COMMITTED,
  });
  const values: string[] = [];
  try {
    const stream = await consumer.consume({
      topics: [topic],
      mode: MessagesStreamModes.EARLIEST,
      autocommit: false,
      sessionTimeout: 10_000,
      heartbeatInterval: 500,
    });
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (message: { value: string }) => {
        values.push(message.value);
        if (message.value === LAST) resolve();
      });
      stream.on('error', reject);
    });
    await stream.close();
  } finally {
    await consumer.close(true);
  }
  return values;
}

for (const version of KAFKA_VERSIONS) {
  test(`--kafka-version ${version}: kafkajs and @platformatic/kafka produce, consume and commit transactions`, { timeout: 120_000 }, async (t) => {
    const broker = await startBroker({ kafkaVersion: version });
    t.after(() => broker.close());
    const topic = `profile-${version.replace('.', '-')}`;
    assert.deepEqual(await kafkajsRound(broker, `${topic}-kafkajs`), ['idempotent', 'committed', LAST]);
    assert.deepEqual(await platformaticRound(broker, `${topic}-platformatic`), ['idempotent', 'committed', LAST]);
  });
}
