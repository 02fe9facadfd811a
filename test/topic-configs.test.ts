/** Topic configs of a topic's own: given to CreateTopics, stored with the topic, applied to it alone, kept across restarts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startBroker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { buildBatch, valuesBatch } from './helpers/batch.js';
import { tempDir } from './helpers/log.js';
import { brokerAt, describedTopic, earliestOffset } from './helpers/topic-configs.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch, produceRequest } from './helpers/wire-produce.js';

const logFiles = async (dataDir: string, topic: string): Promise<string[]> => (await readdir(join(dataDir, `${topic}-0`))).filter((f) => f.endsWith('.log'));

test("a topic's segment.bytes and retention.ms apply to it alone", async (t) => {
  const dataDir = await tempDir(t);
  const { client } = await brokerAt(t, dataDir);
  await createTopic(client, 'short', 1, { 'segment.bytes': '300', 'retention.ms': '1' });
  await createTopic(client, 'long', 1);
  for (let i = 0; i < 6; i++) {
    for (const topic of ['short', 'long']) assert.equal((await produceBatch(client, topic, 0, valuesBatch(3))).errorCode, ErrorCode.NONE);
  }
  assert.equal((await logFiles(dataDir, 'long')).length, 1, "the broker's segment.bytes: one segment");
  await until(async () => (await earliestOffset(client, 'short')) > 0, "short's retention deletes its old segments");
  assert.equal(await earliestOffset(client, 'long'), 0, "the broker's retention.ms keeps long's records");
});

test('configs are stored with the topic: a restart keeps them, and DescribeConfigs still says they are its own', async (t) => {
  const dataDir = await tempDir(t);
  const first = await startBroker({ port: 0, dataDir });
  const client = await WireClient.connect(first.port);
  await createTopic(client, 'kept', 2, { 'retention.ms': '60000', 'cleanup.policy': 'compact,delete', 'max.compaction.lag.ms': '5000' });
  client.close();
  await first.close();
  const metadata = JSON.parse(await readFile(join(dataDir, 'metadata.json'), 'utf8')) as { topics: { name: string; configs: unknown }[] };
  assert.deepEqual(metadata.topics.find((x) => x.name === 'kept')!.configs, {
    'retention.ms': '60000',
    'cleanup.policy': 'compact,delete',
    'max.compaction.lag.ms': '5000',
  });

  const { client: again } = await brokerAt(t, dataDir);
  const configs = await describedTopic(again, 'kept');
  assert.deepEqual(configs.get('retention.ms'), ['60000', 1]);
  assert.deepEqual(configs.get('cleanup.policy'), ['compact,delete', 1]);
  assert.deepEqual(configs.get('max.compaction.lag.ms'), ['5000', 1]);
  assert.deepEqual(configs.get('segment.ms'), [String(7 * 24 * 3600 * 1000), 5]);
});

test("message.timestamp.type and max.message.bytes of a topic's own are what its produce answers follow", async (t) => {
  const { client } = await brokerAt(t, await tempDir(t));
  await createTopic(client, 'stamped', 1, { 'message.timestamp.type': 'LogAppendTime' });
  await createTopic(client, 'small', 1, { 'max.message.bytes': '100' });
  await createTopic(client, 'plain', 1);
  const appendTime = async (topic: string): Promise<bigint> => {
    const res = await client.request(ProduceRequest, ProduceResponse, 9, produceRequest(topic, 0, valuesBatch(1)));
    return res.responses[0]!.partitionResponses[0]!.logAppendTimeMs;
  };
  assert.ok((await appendTime('stamped')) > 0n, 'stamped by the broker');
  assert.equal(await appendTime('plain'), -1n, "the broker's CreateTime");

  const big = valuesBatch(5);
  assert.ok(big.length > 100);
  const refused = await client.request(ProduceRequest, ProduceResponse, 9, produceRequest('small', 0, big));
  const answer = refused.responses[0]!.partitionResponses[0]!;
  assert.equal(answer.errorCode, ErrorCode.MESSAGE_TOO_LARGE);
  assert.equal(answer.errorMessage, `The record batch size in the append to small-0 is ${big.length} bytes which exceeds the maximum configured value of 100.`);
  assert.equal((await produceBatch(client, 'plain', 0, big)).errorCode, ErrorCode.NONE);
});

test('a compacted topic refuses records without a key, INVALID_RECORD naming each, as Kafka; keyed records are taken', async (t) => {
  const { client } = await brokerAt(t, await tempDir(t));
  await createTopic(client, 'table', 1, { 'cleanup.policy': 'compact' });
  await createTopic(client, 'stream', 1);
  const keyless = buildBatch([
    { key: Buffer.from('k'), value: Buffer.from('a') },
    { key: null, value: Buffer.from('b') },
    { key: null, value: null },
  ]);
  const res = await client.request(ProduceRequest, ProduceResponse, 9, produceRequest('table', 0, keyless));
  const answer = res.responses[0]!.partitionResponses[0]!;
  const message = 'Compacted topic cannot accept message without key in topic partition table-0.';
  assert.equal(answer.errorCode, ErrorCode.INVALID_RECORD);
  assert.deepEqual(answer.recordErrors, [
    { batchIndex: 1, batchIndexErrorMessage: message },
    { batchIndex: 2, batchIndexErrorMessage: message },
  ]);
  assert.equal((await produceBatch(client, 'stream', 0, keyless)).errorCode, ErrorCode.NONE, 'a topic of cleanup.policy delete takes them');
  const keyed = buildBatch([
    { key: Buffer.from('k'), value: Buffer.from('a') },
    { key: Buffer.from('k'), value: null },
  ]);
  assert.deepEqual(await produceBatch(client, 'table', 0, keyed), { errorCode: ErrorCode.NONE, baseOffset: 0 });
});

test('cleanup.policy compact alone keeps every segment past retention.ms, as Kafka; compact,delete applies it', async (t) => {
  const dataDir = await tempDir(t);
  const { client } = await brokerAt(t, dataDir);
  const configs = { 'segment.bytes': '300', 'retention.ms': '1' };
  await createTopic(client, 'kept', 1, { ...configs, 'cleanup.policy': 'compact' });
  await createTopic(client, 'both', 1, { ...configs, 'cleanup.policy': 'compact,delete' });
  const keyed = buildBatch([{ key: Buffer.from('k'), value: Buffer.alloc(100) }]);
  for (let i = 0; i < 6; i++) {
    for (const topic of ['kept', 'both']) assert.equal((await produceBatch(client, topic, 0, keyed)).errorCode, ErrorCode.NONE);
  }
  await until(async () => (await earliestOffset(client, 'both')) > 0, 'compact,delete: retention deletes');
  // Retention runs per partition every 50 ms: a few more rounds for the compacted one.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(await earliestOffset(client, 'kept'), 0);
  assert.ok((await logFiles(dataDir, 'kept')).length > 2);
});
