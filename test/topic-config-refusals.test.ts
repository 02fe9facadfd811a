/**
 * Config names and values Kafka refuses, in CreateTopics, AlterConfigs and IncrementalAlterConfigs:
 * INVALID_CONFIG naming the config, the topic left as it was, the connection kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigResourceTypes, KafkaJSProtocolError } from 'kafkajs';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AlterConfigsRequest, AlterConfigsResponse } from '../src/protocol/messages/alter-configs.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../src/protocol/messages/incremental-alter-configs.js';
import { kafkajs } from './helpers/kafkajs.js';
import { tempDir } from './helpers/log.js';
import { brokerAt, describedTopic } from './helpers/topic-configs.js';
import type { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

/** kafkajs's ConfigResourceTypes.TOPIC, which its CommonJS module does not export by name to ESM. */
const TOPIC_RESOURCE = 2 as ConfigResourceTypes;

type Answer = [errorCode: number, errorMessage: string | null];

/** The answer of each API that takes topic configs to setting `name` to `value`: CreateTopics of a new topic, AlterConfigs and IncrementalAlterConfigs of `topic`. */
async function answers(client: WireClient, topic: string, name: string, value: string): Promise<Answer[]> {
  const created = await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name: `${topic}-new`, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name, value }] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  const altered = await client.request(AlterConfigsRequest, AlterConfigsResponse, 2, {
    validateOnly: false,
    resources: [{ resourceType: 2, resourceName: topic, configs: [{ name, value }] }],
  });
  const incremental = await client.request(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 1, {
    validateOnly: false,
    resources: [{ resourceType: 2, resourceName: topic, configs: [{ name, configOperation: 0, value }] }],
  });
  return [
    [created.topics[0]!.errorCode, created.topics[0]!.errorMessage],
    [altered.responses[0]!.errorCode, altered.responses[0]!.errorMessage],
    [incremental.responses[0]!.errorCode, incremental.responses[0]!.errorMessage],
  ];
}

test("names of Object's prototype are unknown config names, INVALID_CONFIG as foo.bar is, and the connection stays", async (t) => {
  const { client } = await brokerAt(t, await tempDir(t));
  await createTopic(client, 'named', 1);
  for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf', 'foo.bar']) {
    const expected: Answer = [ErrorCode.INVALID_CONFIG, `Unknown topic config name: ${name}`];
    assert.deepEqual(await answers(client, 'named', name, '1'), [expected, expected, expected], name);
  }
  const configs = await describedTopic(client, 'named');
  assert.ok(
    [...configs.values()].every(([, source]) => source !== 1),
    'the topic has no configs of its own',
  );
});

test("values outside Kafka's range (LogConfig) are INVALID_CONFIG, in Kafka's words naming the config", async (t) => {
  const { client } = await brokerAt(t, await tempDir(t));
  await createTopic(client, 'ranged', 1);
  const cases: [name: string, value: string, problem: string][] = [
    ['min.cleanable.dirty.ratio', '-1', 'Value must be at least 0'],
    ['min.cleanable.dirty.ratio', '2', 'Value must be no more than 1'],
    ['delete.retention.ms', '-5', 'Value must be at least 0'],
    ['max.compaction.lag.ms', '0', 'Value must be at least 1'],
    ['min.compaction.lag.ms', '-1', 'Value must be at least 0'],
    ['min.insync.replicas', '0', 'Value must be at least 1'],
    ['retention.ms', '-2', 'Value must be at least -1'],
    ['segment.bytes', '13', 'Value must be at least 14'],
    ['max.message.bytes', '-1', 'Value must be at least 0'],
  ];
  for (const [name, value, problem] of cases) {
    const expected: Answer = [ErrorCode.INVALID_CONFIG, `Invalid value ${value} for configuration ${name}: ${problem}`];
    assert.deepEqual(await answers(client, 'ranged', name, value), [expected, expected, expected], `${name}=${value}`);
  }
  // Checked together, as Kafka's LogConfig.validateValues: the least lag past the greatest.
  const conflict: Answer = [ErrorCode.INVALID_CONFIG, 'conflict topic config setting min.compaction.lag.ms (5000) > max.compaction.lag.ms (1000)'];
  await createTopic(client, 'lagged', 1, { 'max.compaction.lag.ms': '1000' });
  const incremental = await client.request(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 1, {
    validateOnly: false,
    resources: [{ resourceType: 2, resourceName: 'lagged', configs: [{ name: 'min.compaction.lag.ms', configOperation: 0, value: '5000' }] }],
  });
  assert.deepEqual([incremental.responses[0]!.errorCode, incremental.responses[0]!.errorMessage], conflict);
  const created = await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [
      {
        name: 'lagged-too',
        numPartitions: 1,
        replicationFactor: 1,
        assignments: [],
        configs: [
          { name: 'min.compaction.lag.ms', value: '5000' },
          { name: 'max.compaction.lag.ms', value: '1000' },
        ],
      },
    ],
    timeoutMs: 1000,
    validateOnly: false,
  });
  assert.deepEqual([created.topics[0]!.errorCode, created.topics[0]!.errorMessage], conflict);
  // The ends of each range are taken.
  for (const [name, value] of [
    ['min.cleanable.dirty.ratio', '0'],
    ['min.cleanable.dirty.ratio', '1'],
    ['max.compaction.lag.ms', '1'],
    ['min.insync.replicas', '1'],
    ['delete.retention.ms', '0'],
  ] as const) {
    const [, altered] = await answers(client, `taken-${name}-${value}`.replaceAll('.', '-'), name, value);
    assert.equal(altered![0], ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${name}=${value} passes the checks, then finds no topic`);
  }
});

test('kafkajs gets INVALID_CONFIG for a prototype name and an out-of-range value, and its admin goes on working', async (t) => {
  const { broker } = await brokerAt(t, await tempDir(t));
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  const refusal = (p: Promise<unknown>): Promise<string | undefined> =>
    p.then(
      () => undefined,
      (err: KafkaJSProtocolError & { errors?: KafkaJSProtocolError[] }) => err.type ?? err.errors?.[0]?.type,
    );
  for (const [name, value] of [
    ['constructor', '1'],
    ['min.cleanable.dirty.ratio', '2'],
  ] as const) {
    const topic = `refused-${name.replaceAll('.', '-')}`;
    assert.equal(await refusal(admin.createTopics({ topics: [{ topic, configEntries: [{ name, value }] }] })), 'INVALID_CONFIG', name);
    assert.ok(!(await admin.listTopics()).includes(topic));
  }
  await admin.createTopics({ topics: [{ topic: 'kept' }] });
  for (const name of ['toString', 'max.compaction.lag.ms']) {
    const altered = admin.alterConfigs({ validateOnly: false, resources: [{ type: TOPIC_RESOURCE, name: 'kept', configEntries: [{ name, value: '0' }] }] });
    assert.equal(await refusal(altered), 'INVALID_CONFIG', name);
  }
  assert.deepEqual(await admin.listTopics(), ['kept']);
});
