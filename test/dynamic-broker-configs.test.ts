/** Dynamic broker configs: AlterConfigs on the broker resource changes the defaults of every topic without its own value, at once and across a restart. */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Admin, ConfigResourceTypes } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../src/protocol/messages/incremental-alter-configs.js';
import { valuesBatch } from './helpers/batch.js';
import { kafkajs } from './helpers/kafkajs.js';
import { closeAtEnd, tempDir } from './helpers/log.js';
import { describedTopic, earliestOffset } from './helpers/topic-configs.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

/** kafkajs's ConfigResourceTypes.BROKER, which its CommonJS module does not export by name to ESM. */
const BROKER_RESOURCE = 4 as ConfigResourceTypes;
const DYNAMIC_BROKER_CONFIG = 2;
const DYNAMIC_DEFAULT_BROKER_CONFIG = 3;
const DAY = 24 * 3600 * 1000;

async function started(t: TestContext, dataDir: string): Promise<{ broker: Broker; client: WireClient; admin: Admin }> {
  const broker = closeAtEnd(t, await startBroker({ port: 0, dataDir, retentionCheckIntervalMs: 50 }));
  const client = await WireClient.connect(broker.port);
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  closeAtEnd(t, {
    close: async () => {
      client.close();
      await admin.disconnect();
    },
  });
  return { broker, client, admin };
}

/** Produces to `topic` (small segments) until retention has deleted its first segment. */
async function retentionDeletes(client: WireClient, topic: string): Promise<void> {
  await until(async () => {
    assert.equal((await produceBatch(client, topic, 0, valuesBatch(10))).errorCode, ErrorCode.NONE);
    return (await earliestOffset(client, topic)) > 0;
  }, `${topic}: retention deletes old segments`);
}

async function brokerConfig(admin: Admin, name: string): Promise<{ configValue: string; configSource?: number; readOnly: boolean }> {
  const described = await admin.describeConfigs({ resources: [{ type: BROKER_RESOURCE, name: '1', configNames: [name] }], includeSynonyms: true });
  return described.resources[0]!.configEntries[0]! as { configValue: string; configSource?: number; readOnly: boolean };
}

test("kafkajs alterConfigs of the broker's log.retention.ms acts on topics without their own, at once and after a restart, and DescribeConfigs shows it dynamic", async (t) => {
  const dataDir = await tempDir(t);
  const first = await started(t, dataDir);
  await createTopic(first.client, 'follows', 1, { 'segment.bytes': '200' });
  await createTopic(first.client, 'own', 1, { 'segment.bytes': '200', 'retention.ms': String(DAY) });
  for (let i = 0; i < 5; i++) for (const topic of ['follows', 'own']) await produceBatch(first.client, topic, 0, valuesBatch(10));
  assert.equal(await earliestOffset(first.client, 'follows'), 0, "the broker's week keeps everything");

  await first.admin.alterConfigs({
    validateOnly: false,
    resources: [{ type: BROKER_RESOURCE, name: '1', configEntries: [{ name: 'log.retention.ms', value: '1' }] }],
  });
  const altered = await brokerConfig(first.admin, 'log.retention.ms');
  assert.deepEqual([altered.configValue, altered.configSource, altered.readOnly], ['1', DYNAMIC_BROKER_CONFIG, false]);
  await retentionDeletes(first.client, 'follows');
  assert.deepEqual((await describedTopic(first.client, 'follows')).get('retention.ms'), ['1', DYNAMIC_BROKER_CONFIG]);
  assert.deepEqual((await describedTopic(first.client, 'own')).get('retention.ms'), [String(DAY), 1]);
  assert.equal(await earliestOffset(first.client, 'own'), 0, 'a topic with its own retention.ms keeps it');
  await first.broker.close();

  const again = await started(t, dataDir);
  assert.equal((await brokerConfig(again.admin, 'log.retention.ms')).configSource, DYNAMIC_BROKER_CONFIG, 'kept across the restart');
  await createTopic(again.client, 'later', 1, { 'segment.bytes': '200' });
  await retentionDeletes(again.client, 'later');
  assert.deepEqual((await describedTopic(again.client, 'later')).get('retention.ms'), ['1', DYNAMIC_BROKER_CONFIG]);
});

test('the cluster default ("") comes after this broker\'s value; DELETE goes back; a config Kafka cannot change at run time is INVALID_REQUEST, a bad value INVALID_CONFIG', async (t) => {
  const { client } = await started(t, await tempDir(t));
  await createTopic(client, 'plain', 1);
  const alter = async (resourceName: string, name: string, configOperation: number, value: string | null): Promise<[number, string | null]> => {
    const res = await client.request(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 1, {
      validateOnly: false,
      resources: [{ resourceType: 4, resourceName, configs: [{ name, configOperation, value }] }],
    });
    return [res.responses[0]!.errorCode, res.responses[0]!.errorMessage];
  };
  assert.deepEqual(await alter('', 'log.segment.bytes', 0, '1048576'), [ErrorCode.NONE, null]);
  assert.deepEqual((await describedTopic(client, 'plain')).get('segment.bytes'), ['1048576', DYNAMIC_DEFAULT_BROKER_CONFIG]);
  assert.deepEqual(await alter('1', 'log.segment.bytes', 0, '2097152'), [ErrorCode.NONE, null]);
  assert.deepEqual((await describedTopic(client, 'plain')).get('segment.bytes'), ['2097152', DYNAMIC_BROKER_CONFIG]);
  assert.deepEqual(await alter('1', 'log.segment.bytes', 1, null), [ErrorCode.NONE, null]);
  assert.deepEqual((await describedTopic(client, 'plain')).get('segment.bytes'), ['1048576', DYNAMIC_DEFAULT_BROKER_CONFIG]);

  const [code, message] = await alter('1', 'log.dirs', 0, '/elsewhere');
  assert.equal(code, ErrorCode.INVALID_REQUEST);
  assert.match(message!, /Cannot update these configs dynamically: Set\(log\.dirs\)/);
  for (const name of ['constructor', '__proto__']) assert.equal((await alter('1', name, 0, '1'))[0], ErrorCode.INVALID_REQUEST, name);
  for (const [name, value] of [
    ['log.retention.ms', 'soon'],
    ['log.message.timestamp.type', 'WallClock'],
    ['log.cleaner.min.cleanable.ratio', '2'],
  ]) {
    const [bad, said] = await alter('1', name!, 0, value!);
    assert.equal(bad, ErrorCode.INVALID_CONFIG, name);
    assert.ok(said!.startsWith(`Invalid value ${value} for configuration ${name}:`), said!);
  }
  assert.deepEqual((await describedTopic(client, 'plain')).get('message.timestamp.type'), ['CreateTime', 5], 'refusals change nothing');
});
