/**
 * Every topic config of the table, set at creation (kafkajs createTopics) and by alteration
 * (kafkajs alterConfigs), is the topic's own in DescribeConfigs, before and after a restart; those
 * brook acts on act the same whichever way they were set.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigResourceTypes } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { TOPIC_CONFIGS, type TopicConfigRow } from '../src/settings/topic-configs.js';
import { buildBatch, valuesBatch } from './helpers/batch.js';
import { kafkajs } from './helpers/kafkajs.js';
import { closeAtEnd, tempDir } from './helpers/log.js';
import { describedTopic, earliestOffset } from './helpers/topic-configs.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { produceBatch, produceRequest } from './helpers/wire-produce.js';

/** kafkajs's ConfigResourceTypes.TOPIC, which its CommonJS module does not export by name to ESM. */
const TOPIC_RESOURCE = 2 as ConfigResourceTypes;
const DYNAMIC_TOPIC_CONFIG = 1;

/** A value the row's type and range take, other than any default brook has. */
function sample({ type, range }: TopicConfigRow): string {
  if (type === 'int' || type === 'long') return String(range?.[0] === undefined ? (range?.[1] ?? 12_345) - 1 : range[0] + 1);
  if (type === 'double') return '0.25';
  if (type === 'boolean') return 'true';
  if (type === 'string') return '*';
  if ('oneOf' in type) return type.oneOf.at(-2)!;
  return type.listOf.join(',');
}

interface Effect {
  /** The config's value, with any others it needs to show (segment.bytes for retention to have old segments to delete). */
  readonly configs: Record<string, string>;
  /** Passes once the topic acts on the config. */
  readonly acts: (client: WireClient, topic: string, dataDir: string) => Promise<void>;
}

const produced = async (client: WireClient, topic: string, batch: Buffer): Promise<number> => (await produceBatch(client, topic, 0, batch)).errorCode;
const segments = async (dataDir: string, topic: string): Promise<number> =>
  (await readdir(join(dataDir, `${topic}-0`))).filter((f) => f.endsWith('.log')).length;

/** How each config brook acts on shows it. */
const EFFECTS: ReadonlyMap<string, Effect> = new Map<string, Effect>([
  [
    'segment.bytes',
    {
      configs: { 'segment.bytes': '1024' },
      async acts(client, topic, dataDir) {
        assert.equal(await produced(client, topic, valuesBatch(200)), ErrorCode.RECORD_LIST_TOO_LARGE);
        const before = await segments(dataDir, topic);
        for (let i = 0; i < 3; i++) assert.equal(await produced(client, topic, valuesBatch(40)), ErrorCode.NONE);
        assert.ok((await segments(dataDir, topic)) > before, 'rolled');
      },
    },
  ],
  [
    'max.message.bytes',
    {
      configs: { 'max.message.bytes': '200' },
      async acts(client, topic) {
        assert.equal(await produced(client, topic, valuesBatch(40)), ErrorCode.MESSAGE_TOO_LARGE);
        assert.equal(await produced(client, topic, valuesBatch(2)), ErrorCode.NONE);
      },
    },
  ],
  ['retention.ms', { configs: { 'retention.ms': '1', 'segment.bytes': '200' }, acts: deletesOldSegments }],
  ['retention.bytes', { configs: { 'retention.bytes': '1', 'segment.bytes': '200' }, acts: deletesOldSegments }],
  [
    'segment.ms',
    {
      configs: { 'segment.ms': '1' },
      async acts(client, topic, dataDir) {
        const before = await segments(dataDir, topic);
        await until(
          async () => (await produced(client, topic, valuesBatch(1))) === ErrorCode.NONE && (await segments(dataDir, topic)) > before + 1,
          'rolled by age',
        );
      },
    },
  ],
  [
    'message.timestamp.type',
    {
      configs: { 'message.timestamp.type': 'LogAppendTime' },
      async acts(client, topic) {
        const res = await client.request(ProduceRequest, ProduceResponse, 9, produceRequest(topic, 0, valuesBatch(1)));
        assert.ok(res.responses[0]!.partitionResponses[0]!.logAppendTimeMs > 0n, 'stamped by the broker');
      },
    },
  ],
  [
    'message.timestamp.before.max.ms',
    {
      configs: { 'message.timestamp.before.max.ms': '60000' },
      async acts(client, topic) {
        assert.equal(await produced(client, topic, valuesBatch(1, { baseTimestamp: Date.now() - 3_600_000 })), ErrorCode.INVALID_TIMESTAMP);
      },
    },
  ],
  [
    'message.timestamp.after.max.ms',
    {
      configs: { 'message.timestamp.after.max.ms': '60000' },
      async acts(client, topic) {
        assert.equal(await produced(client, topic, valuesBatch(1, { baseTimestamp: Date.now() + 1_800_000 })), ErrorCode.INVALID_TIMESTAMP);
      },
    },
  ],
  [
    'cleanup.policy',
    {
      configs: { 'cleanup.policy': 'compact' },
      async acts(client, topic) {
        assert.equal(await produced(client, topic, buildBatch([{ key: null, value: Buffer.from('v') }])), ErrorCode.INVALID_RECORD);
        assert.equal(await produced(client, topic, buildBatch([{ key: Buffer.from('k'), value: Buffer.from('v') }])), ErrorCode.NONE);
      },
    },
  ],
]);

async function deletesOldSegments(client: WireClient, topic: string): Promise<void> {
  await until(async () => {
    assert.equal(await produced(client, topic, valuesBatch(10)), ErrorCode.NONE);
    return (await earliestOffset(client, topic)) > 0;
  }, `${topic}: retention deletes old segments`);
}

const ALL = Object.fromEntries([...TOPIC_CONFIGS.values()].map((row) => [row.name, sample(row)]));

async function started(t: TestContext, dataDir: string): Promise<{ broker: Broker; client: WireClient }> {
  const broker = closeAtEnd(t, await startBroker({ port: 0, dataDir, retentionCheckIntervalMs: 50 }));
  const client = await WireClient.connect(broker.port);
  closeAtEnd(t, { close: async () => client.close() });
  return { broker, client };
}

async function assertOwn(client: WireClient, topic: string, configs: Record<string, string>): Promise<void> {
  const described = await describedTopic(client, topic);
  for (const [name, value] of Object.entries(configs)) assert.deepEqual(described.get(name), [value, DYNAMIC_TOPIC_CONFIG], `${topic}: ${name}`);
}

const topicName = (how: string, config: string): string => `${how}-${config.replaceAll('.', '-')}`;

test('every topic config of the table, set at creation or by alteration, is the topic’s own and acts, before and after a restart', async (t) => {
  const dataDir = await tempDir(t);
  const first = await started(t, dataDir);
  const admin = kafkajs(first.broker.bootstrap).admin();
  await admin.connect();
  try {
    const created = [{ topic: 'created-all', configs: ALL }, ...[...EFFECTS].map(([name, e]) => ({ topic: topicName('created', name), configs: e.configs }))];
    const altered = [{ topic: 'altered-all', configs: ALL }, ...[...EFFECTS].map(([name, e]) => ({ topic: topicName('altered', name), configs: e.configs }))];
    await admin.createTopics({
      topics: [
        ...created.map(({ topic, configs }) => ({ topic, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) })),
        ...altered.map(({ topic }) => ({ topic })),
      ],
    });
    await admin.alterConfigs({
      validateOnly: false,
      resources: altered.map(({ topic, configs }) => ({
        type: TOPIC_RESOURCE,
        name: topic,
        configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })),
      })),
    });
    for (const { topic, configs } of [...created, ...altered]) await assertOwn(first.client, topic, configs);
    for (const [name, effect] of EFFECTS) {
      for (const how of ['created', 'altered']) await effect.acts(first.client, topicName(how, name), dataDir);
    }
  } finally {
    await admin.disconnect();
  }
  first.client.close();
  await first.broker.close();

  const again = await started(t, dataDir);
  await assertOwn(again.client, 'created-all', ALL);
  await assertOwn(again.client, 'altered-all', ALL);
  for (const [name, effect] of EFFECTS) {
    for (const how of ['created', 'altered']) {
      await assertOwn(again.client, topicName(how, name), effect.configs);
      await effect.acts(again.client, topicName(how, name), dataDir);
    }
  }
});
