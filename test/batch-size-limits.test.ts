/** A topic's segment.bytes and max.message.bytes bound every batch its log takes, as Kafka's log bounds them, seen through kafkajs. */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { CompressionTypes, type KafkaJSProtocolError, type Producer } from 'kafkajs';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { kafkajs } from './helpers/kafkajs.js';
import { tempDir } from './helpers/log.js';
import { brokerAt, earliestOffset, latestOffset } from './helpers/topic-configs.js';
import type { WireClient } from './helpers/wire-client.js';

/** A broker, a raw client, and a kafkajs producer that does not retry, with a kafkajs admin's createTopics. */
async function connected(
  t: TestContext,
): Promise<{ client: WireClient; producer: Producer; createTopic: (topic: string, configs: Record<string, string>) => Promise<void> }> {
  const { broker, client } = await brokerAt(t, await tempDir(t));
  const kafka = kafkajs(broker.bootstrap);
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
  await admin.connect();
  await producer.connect();
  t.after(async () => {
    await producer.disconnect();
    await admin.disconnect();
  });
  const createTopic = async (topic: string, configs: Record<string, string>): Promise<void> => {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }] });
  };
  return { client, producer, createTopic };
}

const messages = (count: number, bytes: number): { value: Buffer }[] =>
  Array.from({ length: count }, (_, i) => ({ value: Buffer.alloc(bytes, 97 + (i % 26)) }));

test("a batch larger than the topic's segment.bytes is refused with RECORD_LIST_TOO_LARGE and stores nothing; one under it is stored", async (t) => {
  const { client, producer, createTopic } = await connected(t);
  await createTopic('small-segments', { 'segment.bytes': '4096' });

  // 100 records of 100 bytes: about 11 KB in one batch.
  const refused = await producer.send({ topic: 'small-segments', messages: messages(100, 100), compression: CompressionTypes.None }).then(
    () => undefined,
    (err: KafkaJSProtocolError) => err,
  );
  assert.equal(refused?.type, 'RECORD_LIST_TOO_LARGE', String(refused));
  assert.equal(await latestOffset(client, 'small-segments'), 0, 'nothing appended');

  const [stored] = await producer.send({ topic: 'small-segments', messages: messages(20, 100) });
  assert.equal(stored!.errorCode, ErrorCode.NONE);
  assert.equal(await latestOffset(client, 'small-segments'), 20);
  assert.equal(await earliestOffset(client, 'small-segments'), 0);
});

test("max.message.bytes is checked before segment.bytes, as Kafka's log checks them: MESSAGE_TOO_LARGE", async (t) => {
  const { client, producer, createTopic } = await connected(t);
  await createTopic('both-small', { 'segment.bytes': '4096', 'max.message.bytes': '2048' });
  const refused = await producer.send({ topic: 'both-small', messages: messages(100, 100) }).then(
    () => undefined,
    (err: KafkaJSProtocolError) => err,
  );
  assert.equal(refused?.type, 'MESSAGE_TOO_LARGE', String(refused));
  assert.equal(await latestOffset(client, 'both-small'), 0, 'nothing appended');
});
