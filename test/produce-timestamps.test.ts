import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { crc32c } from '../src/protocol/crc32c.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { buildBatch, valuesBatch } from './helpers/batch.js';
import { kafkajs } from './helpers/kafkajs.js';
import { tempDir } from './helpers/log.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceBatch, produceRequest } from './helpers/wire-produce.js';

const HOUR = 3_600_000;

async function connected(t: TestContext, options: Parameters<typeof startBroker>[0]): Promise<{ broker: Broker; client: WireClient }> {
  const broker = await startBroker({ port: 0, ...options });
  t.after(() => broker.close());
  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  return { broker, client };
}

/** The first offset at or after `timestamp`, and its time, as ListOffsets answers. */
async function offsetForTime(client: WireClient, topic: string, timestamp: number): Promise<{ offset: number; timestamp: number }> {
  const res = await client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: BigInt(timestamp), maxNumOffsets: 1 }] }],
    timeoutMs: 0,
  });
  const p = res.topics[0]!.partitions[0]!;
  return { offset: Number(p.offset), timestamp: Number(p.timestamp) };
}

/** Every stored batch of partition 0, as Fetch serves them. */
async function storedBatches(client: WireClient, topic: string): Promise<Buffer[]> {
  const batches: Buffer[] = [];
  for (let offset = 0; ;) {
    const res = await client.request(FetchRequest, FetchResponse, 12, fetchOf(topic, [0], { offset }));
    const records = res.responses[0]!.partitions[0]!.records;
    if (records === null || records.length === 0) return batches;
    for (let pos = 0; pos < records.length;) {
      const header = readBatchHeader(records, pos);
      batches.push(Buffer.from(records.subarray(pos, pos + header.size)));
      pos += header.size;
      offset = header.baseOffset + header.lastOffsetDelta + 1;
    }
  }
}

/** As Sarama 1.22 sends a batch: records stamped, the header's max timestamp left -1. */
function unsetMaxTimestamp(batch: Buffer): Buffer {
  batch.writeBigInt64BE(-1n, 35);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

test('a batch stamped further ahead than log.message.timestamp.after.max.ms is refused with INVALID_TIMESTAMP and not stored', async (t) => {
  const broker = await startBroker({ port: 0 });
  t.after(() => broker.close());
  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  await createTopic(client, 'stamps', 1);

  const ahead = await produceBatch(client, 'stamps', 0, valuesBatch(3, { baseTimestamp: Date.now() + 2 * HOUR }));
  assert.equal(ahead.errorCode, ErrorCode.INVALID_TIMESTAMP);
  // The batch's latest timestamp counts, here its second record's.
  const lastAhead = await produceBatch(
    client,
    'stamps',
    0,
    buildBatch([{ value: Buffer.from('now') }, { value: Buffer.from('later'), timestampDelta: 2 * HOUR }]),
  );
  assert.equal(lastAhead.errorCode, ErrorCode.INVALID_TIMESTAMP);
  const near = await produceBatch(client, 'stamps', 0, valuesBatch(3, { baseTimestamp: Date.now() + HOUR / 2 }));
  assert.deepEqual(near, { errorCode: 0, baseOffset: 0 }, 'within the hour, stored at the start of the log');
  const old = await produceBatch(client, 'stamps', 0, valuesBatch(3, { baseTimestamp: Date.now() - 30 * 24 * HOUR }));
  assert.deepEqual(old, { errorCode: 0, baseOffset: 3 }, 'no limit on the past, as Kafka by default');
});

test('the limit is the broker setting: a broker allowing a day takes a batch two hours ahead', async (t) => {
  const broker = await startBroker({ port: 0, messageTimestampAfterMaxMs: 24 * HOUR });
  t.after(() => broker.close());
  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  await createTopic(client, 'stamps', 1);
  assert.deepEqual(await produceBatch(client, 'stamps', 0, valuesBatch(3, { baseTimestamp: Date.now() + 2 * HOUR })), { errorCode: 0, baseOffset: 0 });
});

test("a batch sent with its max timestamp unset (-1) is stored with its records' latest time: retention keeps it and ListOffsets finds it", async (t) => {
  // Small segments and frequent retention checks under the default retention of 7 days.
  const { client } = await connected(t, { segmentBytes: 300, retentionCheckIntervalMs: 50 });
  await createTopic(client, 'unset', 1);
  const t0 = Date.now() - 60_000;
  for (let i = 0; i < 10; i++) {
    const batch = unsetMaxTimestamp(
      buildBatch([{ value: Buffer.from(`a${i}`) }, { value: Buffer.from(`b${i}`), timestampDelta: 500 }], { baseTimestamp: t0 + i * 1000 }),
    );
    assert.deepEqual(await produceBatch(client, 'unset', 0, batch), { errorCode: 0, baseOffset: 2 * i });
  }
  const stored = await storedBatches(client, 'unset');
  assert.deepEqual(
    stored.map((b) => readBatchHeader(b).maxTimestamp),
    stored.map((_, i) => t0 + i * 1000 + 500),
  );
  assert.ok(
    stored.every((b) => crc32c(b.subarray(21)) === b.readUInt32BE(17)),
    'each stored CRC covers the header as stored',
  );
  // Several retention checks later, every acknowledged record is still there.
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal((await storedBatches(client, 'unset')).length, 10);
  assert.deepEqual(await offsetForTime(client, 'unset', t0 + 4200), { offset: 9, timestamp: t0 + 4500 });
});

test('a record stamped a century ahead in a batch whose header says now is INVALID_TIMESTAMP, with the record named, and not stored', async (t) => {
  const { client } = await connected(t, {});
  await createTopic(client, 'century', 1);
  const now = Date.now();
  const batch = buildBatch([{ value: Buffer.from('now') }, { value: Buffer.from('later'), timestampDelta: 100 * 365 * 24 * HOUR }], { baseTimestamp: now });
  batch.writeBigInt64BE(BigInt(now), 35);
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  const res = await client.request(ProduceRequest, ProduceResponse, 9, produceRequest('century', 0, batch));
  const p = res.responses[0]!.partitionResponses[0]!;
  assert.equal(p.errorCode, ErrorCode.INVALID_TIMESTAMP);
  assert.deepEqual(
    p.recordErrors.map((e) => e.batchIndex),
    [1],
  );
  assert.match(p.recordErrors[0]!.batchIndexErrorMessage ?? '', /outside/);
  assert.equal((await storedBatches(client, 'century')).length, 0);
});

test('message.timestamp.before.max.ms refuses records too far behind the broker clock', async (t) => {
  const { client } = await connected(t, { messageTimestampBeforeMaxMs: 24 * HOUR });
  await createTopic(client, 'old', 1);
  assert.equal((await produceBatch(client, 'old', 0, valuesBatch(2, { baseTimestamp: Date.now() - 48 * HOUR }))).errorCode, ErrorCode.INVALID_TIMESTAMP);
  assert.deepEqual(await produceBatch(client, 'old', 0, valuesBatch(2, { baseTimestamp: Date.now() - 12 * HOUR })), { errorCode: 0, baseOffset: 0 });
});

test("under LogAppendTime records get the broker's time: a consumer sees it, the answer tells it, and a duplicate is told its first copy's", async (t) => {
  const { broker, client } = await connected(t, { messageTimestampType: 'LogAppendTime' });
  await createTopic(client, 'appended', 1);
  const before = Date.now();
  const batch = valuesBatch(3, { baseTimestamp: 1000, producerId: 9n, producerEpoch: 0, baseSequence: 0 });
  const send = async () =>
    (await client.request(ProduceRequest, ProduceResponse, 9, produceRequest('appended', 0, Buffer.from(batch)))).responses[0]!.partitionResponses[0]!;
  const first = await send();
  assert.equal(first.errorCode, 0);
  const appendedAt = Number(first.logAppendTimeMs);
  assert.ok(appendedAt >= before && appendedAt <= Date.now(), `append time ${appendedAt}`);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const again = await send();
  assert.deepEqual(
    [again.errorCode, Number(again.baseOffset), Number(again.logAppendTimeMs)],
    [0, 0, appendedAt],
    "a duplicate, answered with its first copy's time",
  );

  const consumer = kafkajs(broker.bootstrap).consumer({ groupId: 'appended', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'appended', fromBeginning: true });
  const times: string[] = [];
  void consumer.run({ eachMessage: async ({ message }) => void times.push(message.timestamp) });
  await until(() => times.length === 3, 'three messages were consumed').finally(() => consumer.disconnect());
  assert.deepEqual(times, [String(appendedAt), String(appendedAt), String(appendedAt)]);
  assert.deepEqual(await offsetForTime(client, 'appended', 1000), { offset: 0, timestamp: appendedAt }, "found by the broker's time, not the producer's");
});

test("segments an older brook stored with unset max timestamps are kept by retention, by their records' times or else the file's", async (t) => {
  const dataDir = await tempDir(t);
  const options = { dataDir, segmentBytes: 300, retentionCheckIntervalMs: 50 };
  let { broker, client } = await connected(t, options);
  for (const topic of ['timed', 'untimed']) {
    await createTopic(client, topic, 1);
    for (let i = 0; i < 10; i++) await produceBatch(client, topic, 0, valuesBatch(2, { baseTimestamp: Date.now() - 1000 }, `r${i}-`));
  }
  client.close();
  await broker.close();
  // As stored before the header was set from the records: max timestamps -1. In 'timed' the
  // records keep their times, in files last written a month ago (copied, say); in 'untimed'
  // the records have none either, and only the files' times are left.
  const monthAgo = new Date(Date.now() - 30 * 24 * HOUR);
  for (const topic of ['timed', 'untimed']) {
    const dir = join(dataDir, `${topic}-0`);
    const segments = (await readdir(dir)).filter((n) => n.endsWith('.log'));
    assert.ok(segments.length >= 3, `${segments.length} segments`);
    for (const name of segments) {
      const bytes = await readFile(join(dir, name));
      for (let pos = 0; pos < bytes.length; pos += bytes.readInt32BE(pos + 8) + 12) {
        bytes.writeBigInt64BE(-1n, pos + 35);
        if (topic === 'untimed') bytes.writeBigInt64BE(-1n, pos + 27);
        bytes.writeUInt32BE(crc32c(bytes.subarray(pos + 21, pos + bytes.readInt32BE(pos + 8) + 12)), pos + 17);
      }
      await writeFile(join(dir, name), bytes);
      if (topic === 'timed') await utimes(join(dir, name), monthAgo, monthAgo);
      // Its index's times were the headers' too: without it, times are read from the batches.
      await rm(join(dir, name.replace('.log', '.index')), { force: true });
    }
  }
  ({ broker, client } = await connected(t, options));
  await new Promise((resolve) => setTimeout(resolve, 400));
  for (const topic of ['timed', 'untimed']) assert.equal((await storedBatches(client, topic)).length, 10, `no segment of ${topic} deleted`);
  // Before the data directory is removed.
  client.close();
  await broker.close();
});
