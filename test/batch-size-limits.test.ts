/** A topic's segment.bytes and max.message.bytes bound every batch its log takes, as Kafka's log bounds them, seen through kafkajs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompressionTypes, type KafkaJSProtocolError } from 'kafkajs';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { kafkajs } from './helpers/kafkajs.js';
import { tempDir } from './helpers/log.js';
import { brokerAt, earliestOffset } from './helpers/topic-configs.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import type { WireClient } from './helpers/wire-client.js';

/** Partition 0's log end offset, as ListOffsets answers it (LATEST). */
async function latestOffset(client: WireClient, topic: string): Promise<number> {
  const res = await client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 }] }],
    timeoutMs: 0,
  });
  return Number(res.topics[0]!.partitions[0]!.offset);
}

const messages = (count: number, bytes: number): { value: Buffer }[] =>
  Array.from({ length: count }, (_, i) => ({ value: Buffer.alloc(bytes, 97 + (i % 26)) }));

test("a batch larger than the topic's segment.bytes is refused with RECORD_LIST_TOO_LARGE and stores nothing; one under it is stored", async (t) => {
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
  await admin.createTopics({ topics: [{ topic: 'small-segments', numPartitions: 1, configEntries: [{ name: 'segment.bytes', value: '4096' }] }] });

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
  await admin.createTopics({
    topics: [
      {
        topic: 'both-small',
        numPartitions: 1,
        configEntries: [
          { name: 'segment.bytes', value: '4096' },
          { name: 'max.message.bytes', value: '2048' },
        ],
      },
    ],
  });
  const refused = await producer.send({ topic: 'both-small', messages: messages(100, 100) }).then(
    () => undefined,
    (err: KafkaJSProtocolError) => err,
  );
  assert.equal(refused?.type, 'MESSAGE_TOO_LARGE', String(refused));
  assert.equal(await latestOffset(client, 'both-small'), 0, 'nothing appended');
});
