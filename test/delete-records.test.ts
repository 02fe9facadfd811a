/**
 * DeleteRecords: the log start moves up to an offset, inside a segment too; reads below it are
 * refused, ListOffsets answers it, segments wholly below it are deleted, and a restart keeps it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker } from '../src/broker/start-broker.js';
import { writeLogStartOffset } from '../src/log/partition-files.js';
import { parseOffsetFileName } from '../src/log/segment.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from '../src/protocol/messages/delete-records.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { valuesBatch } from './helpers/batch.js';
import { kafkajs } from './helpers/kafkajs.js';
import { appendAll, batch, openLog, readAll, tempDir } from './helpers/log.js';
import { Admin } from './helpers/platformatic.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

type PartitionResult = DeleteRecordsResponse['topics'][number]['partitions'][number];

async function deleteBefore(client: WireClient, topic: string, offsets: [partition: number, offset: bigint][], version = 2): Promise<PartitionResult[]> {
  const res = await client.request(DeleteRecordsRequest, DeleteRecordsResponse, version, {
    topics: [{ name: topic, partitions: offsets.map(([partitionIndex, offset]) => ({ partitionIndex, offset })) }],
    timeoutMs: 1000,
  });
  return res.topics[0]!.partitions;
}

async function fetchFrom(
  client: WireClient,
  topic: string,
  offset: number,
): Promise<{ errorCode: number; logStartOffset: number; firstBase: number | undefined }> {
  const res = await client.request(FetchRequest, FetchResponse, 12, fetchOf(topic, [0], { offset }));
  const p = res.responses[0]!.partitions[0]!;
  const records = p.records ?? Buffer.alloc(0);
  return { errorCode: p.errorCode, logStartOffset: Number(p.logStartOffset), firstBase: records.length > 0 ? Number(records.readBigInt64BE(0)) : undefined };
}

async function segmentBases(dir: string): Promise<number[]> {
  return (await readdir(dir)).flatMap((name) => parseOffsetFileName(name, '.log') ?? []).sort((a, b) => a - b);
}

test('DeleteRecords inside a segment: Fetch below it is OFFSET_OUT_OF_RANGE, ListOffsets earliest answers it, older segments go, a restart keeps it', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-delete-records-'));
  let broker = await startBroker({ port: 0, dataDir, segmentBytes: 400 });
  let client = await WireClient.connect(broker.port);
  t.after(async () => {
    client.close();
    await broker.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  await createTopic(client, 'trimmed', 2);
  for (let i = 0; i < 10; i++) assert.equal((await produceBatch(client, 'trimmed', 0, valuesBatch(3, {}, `b${i}-`))).errorCode, 0);
  const partitionDir = join(dataDir, 'trimmed-0');
  const before = await segmentBases(partitionDir);
  const holding16 = before.filter((base) => base <= 16).at(-1)!;
  assert.ok(before.indexOf(holding16) > 0, `segments ${before}: 16 is not in the first`);

  // Offset 16 is the middle record of the batch at 15.
  assert.deepEqual(await deleteBefore(client, 'trimmed', [[0, 16n]]), [{ partitionIndex: 0, lowWatermark: 16n, errorCode: 0 }]);
  assert.deepEqual(await fetchFrom(client, 'trimmed', 15), { errorCode: 1, logStartOffset: 16, firstBase: undefined });
  assert.deepEqual(await fetchFrom(client, 'trimmed', 16), { errorCode: 0, logStartOffset: 16, firstBase: 15 });
  // Segment files are deleted in the background, after the answer, as in Kafka.
  const kept = before.filter((base) => base >= holding16);
  await until(async () => (await segmentBases(partitionDir)).join() === kept.join(), `only segments ${kept} are left`);
  const byTime = await client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: 'trimmed', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: 0n, maxNumOffsets: 1 }] }],
    timeoutMs: 0,
  });
  assert.equal(byTime.topics[0]!.partitions[0]!.offset, 16n, 'a look-up by time finds no record below the log start, though its batch begins there');

  assert.deepEqual(await deleteBefore(client, 'trimmed', [[0, 4n]], 0), [{ partitionIndex: 0, lowWatermark: 16n, errorCode: 0 }], 'the start never moves back');
  assert.deepEqual(
    await deleteBefore(client, 'trimmed', [
      [0, 31n],
      [0, -2n],
      [1, 1n],
      [2, 0n],
    ]),
    [
      { partitionIndex: 0, lowWatermark: -1n, errorCode: 1 },
      { partitionIndex: 0, lowWatermark: -1n, errorCode: 1 },
      { partitionIndex: 1, lowWatermark: -1n, errorCode: 1 },
      { partitionIndex: 2, lowWatermark: -1n, errorCode: 3 },
    ],
  );

  client.close();
  await broker.close();
  broker = await startBroker({ port: 0, dataDir, segmentBytes: 400 });
  client = await WireClient.connect(broker.port);
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets('trimmed');
  await admin.disconnect();
  assert.deepEqual(
    offsets.find((o) => o.partition === 0),
    { partition: 0, offset: '30', high: '30', low: '16' },
  );
  assert.equal((await fetchFrom(client, 'trimmed', 15)).errorCode, 1);
  assert.deepEqual(await deleteBefore(client, 'trimmed', [[0, -1n]]), [{ partitionIndex: 0, lowWatermark: 30n, errorCode: 0 }], '-1 is the high watermark');
});

test('kafkajs admin.deleteTopicRecords: a consumer from the beginning starts at the new log start, and so does a look-up by timestamp', async (t) => {
  const broker = await startBroker({ port: 0 });
  t.after(() => broker.close());
  const kafka = kafkajs(broker.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'kjs-trimmed', numPartitions: 1 }] });
  const producer = kafka.producer();
  await producer.connect();
  // One batch a message, so that offset 6 starts one.
  for (let i = 0; i < 10; i++) await producer.send({ topic: 'kjs-trimmed', messages: [{ value: `m${i}` }] });
  await producer.disconnect();

  // kafkajs finds the partition's leader only among the topics its metadata has looked up.
  await admin.fetchTopicMetadata({ topics: ['kjs-trimmed'] });
  await admin.deleteTopicRecords({ topic: 'kjs-trimmed', partitions: [{ partition: 0, offset: '6' }] });
  assert.deepEqual(await admin.fetchTopicOffsetsByTimestamp('kjs-trimmed', 0), [{ partition: 0, offset: '6' }]);
  const consumer = kafka.consumer({ groupId: 'kjs-trimmed-readers', maxWaitTimeInMs: 100 });
  await consumer.connect();
  t.after(() => consumer.disconnect());
  await consumer.subscribe({ topic: 'kjs-trimmed', fromBeginning: true });
  const first = await new Promise<{ offset: string; value: string }>((resolve) => {
    void consumer.run({ eachMessage: async ({ message }) => resolve({ offset: message.offset, value: message.value!.toString() }) });
  });
  assert.deepEqual(first, { offset: '6', value: 'm6' });
  // Before the broker closes (the hooks run in the order given): a kafkajs consumer whose broker
  // goes away while it runs may restart for ever, keeping the test process alive.
  await consumer.disconnect();
});

test('@platformatic/kafka Admin.deleteRecords answers each partition its low watermark', async (t) => {
  const broker = await startBroker({ port: 0 });
  t.after(() => broker.close());
  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  await createTopic(client, 'plt-trimmed', 2);
  for (const partition of [0, 1]) await produceBatch(client, 'plt-trimmed', partition, valuesBatch(5));
  const admin = new Admin({ clientId: 'plt-delete-records', bootstrapBrokers: [broker.bootstrap] });
  t.after(() => admin.close());
  const deleted = await admin.deleteRecords({
    topics: [
      {
        name: 'plt-trimmed',
        partitions: [
          { partition: 0, offset: 2n },
          { partition: 1, offset: -1n },
        ],
      },
    ],
  });
  assert.deepEqual(deleted, [
    {
      name: 'plt-trimmed',
      partitions: [
        { partition: 0, lowWatermark: 2n },
        { partition: 1, lowWatermark: 5n },
      ],
    },
  ]);
});

test('retention deletes a segment that a roll left wholly below the log start', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir, { segmentBytes: 100, retentionMs: -1, retentionBytes: -1 });
  appendAll(log, [batch(2)]);
  await log.whenWritten(log.logEndOffset - 1);
  await log.advanceLogStart(log.highWatermark);
  // The active segment could not go; the next append rolls away from it.
  assert.deepEqual(await segmentBases(dir), [0]);
  appendAll(log, [batch(2), batch(2), batch(2)]);
  await log.whenWritten(log.logEndOffset - 1);
  assert.equal((await segmentBases(dir))[0], 0);
  await log.enforceRetention(Date.now());
  assert.equal((await segmentBases(dir))[0], 2);
  assert.equal(log.logStartOffset, 2);
});

test('a stored log start past the log end (its tail lost in a crash) is taken as the log end', async (t) => {
  const dir = await tempDir(t);
  const log = await openLog(t, dir);
  appendAll(log, [batch(3)]);
  await log.close();
  await writeLogStartOffset(dir, 50);
  const reopened = await openLog(t, dir);
  assert.equal(reopened.logStartOffset, 3);
  assert.equal(reopened.logEndOffset, 3);
  const later = batch(10);
  appendAll(reopened, [later]);
  await reopened.close();
  const again = await openLog(t, dir);
  assert.equal(again.logStartOffset, 3, 'the log start taken is kept: the records written after it stay served');
  assert.deepEqual(await readAll(again), [later.bytes]);
});
