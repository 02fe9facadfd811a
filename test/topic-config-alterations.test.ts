/** AlterConfigs and IncrementalAlterConfigs: topic configs changed at run time, checked as Kafka checks them, applied at once, kept across kill -9. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigResourceTypes } from 'kafkajs';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AlterConfigsRequest, AlterConfigsResponse } from '../src/protocol/messages/alter-configs.js';
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../src/protocol/messages/incremental-alter-configs.js';
import { valuesBatch } from './helpers/batch.js';
import { kafkajs } from './helpers/kafkajs.js';
import { tempDir } from './helpers/log.js';
import { brokerAt, describedTopic, earliestOffset } from './helpers/topic-configs.js';
import { Admin } from './helpers/platformatic.js';
import { startServe } from './helpers/serve-process.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

/** kafkajs's ConfigResourceTypes.TOPIC, which its CommonJS module does not export by name to ESM. */
const TOPIC_RESOURCE = 2 as ConfigResourceTypes;
const [SET, DELETE, APPEND, SUBTRACT] = [0, 1, 2, 3];

type Change = [name: string, operation: number, value: string | null];

async function incremental(client: WireClient, topic: string, changes: Change[], validateOnly = false, resourceType = 2): Promise<[number, string | null]> {
  const res = await client.request(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 1, {
    validateOnly,
    resources: [{ resourceType, resourceName: topic, configs: changes.map(([name, configOperation, value]) => ({ name, configOperation, value })) }],
  });
  return [res.responses[0]!.errorCode, res.responses[0]!.errorMessage];
}

const segmentCount = async (dataDir: string, topic: string): Promise<number> =>
  (await readdir(join(dataDir, `${topic}-0`))).filter((f) => f.endsWith('.log')).length;

test('a new segment.bytes rolls at the next batch, a new retention.ms deletes at the next check', async (t) => {
  const dataDir = await tempDir(t);
  const { client } = await brokerAt(t, dataDir);
  await createTopic(client, 'live', 1);
  const produce = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) assert.equal((await produceBatch(client, 'live', 0, valuesBatch(3))).errorCode, ErrorCode.NONE);
  };
  await produce(4);
  assert.equal(await segmentCount(dataDir, 'live'), 1);
  assert.deepEqual(await incremental(client, 'live', [['segment.bytes', SET, '300']]), [ErrorCode.NONE, null]);
  await produce(4);
  assert.ok((await segmentCount(dataDir, 'live')) > 2, 'rolled by the new size');
  assert.equal(await earliestOffset(client, 'live'), 0);
  assert.deepEqual(await incremental(client, 'live', [['retention.ms', SET, '1']]), [ErrorCode.NONE, null]);
  await until(async () => (await earliestOffset(client, 'live')) > 0, 'retention deletes by the new retention.ms');
});

test("SET, DELETE, APPEND and SUBTRACT change the topic's own configs; validateOnly changes nothing", async (t) => {
  const { client } = await brokerAt(t, await tempDir(t));
  await createTopic(client, 'ops', 1, { 'retention.ms': '60000' });
  assert.deepEqual(await incremental(client, 'ops', [['cleanup.policy', APPEND, 'compact']], true), [ErrorCode.NONE, null]);
  assert.deepEqual((await describedTopic(client, 'ops')).get('cleanup.policy'), ['delete', 5], 'validateOnly');

  assert.deepEqual(
    await incremental(client, 'ops', [
      ['cleanup.policy', APPEND, 'compact'],
      ['retention.ms', DELETE, null],
      ['delete.retention.ms', SET, '1000'],
    ]),
    [ErrorCode.NONE, null],
  );
  let configs = await describedTopic(client, 'ops');
  assert.deepEqual(configs.get('cleanup.policy'), ['delete,compact', 1], "appended to the broker's value");
  assert.deepEqual(configs.get('retention.ms'), [String(7 * 24 * 3600 * 1000), 5], "deleted: the broker's again");
  assert.deepEqual(configs.get('delete.retention.ms'), ['1000', 1]);

  assert.deepEqual(await incremental(client, 'ops', [['cleanup.policy', SUBTRACT, 'delete']]), [ErrorCode.NONE, null]);
  assert.deepEqual((await describedTopic(client, 'ops')).get('cleanup.policy'), ['compact', 1]);

  // AlterConfigs replaces the topic's own configs with those given.
  const res = await client.request(AlterConfigsRequest, AlterConfigsResponse, 2, {
    validateOnly: false,
    resources: [{ resourceType: 2, resourceName: 'ops', configs: [{ name: 'segment.ms', value: '100000' }] }],
  });
  assert.deepEqual([res.responses[0]!.errorCode, res.responses[0]!.errorMessage], [ErrorCode.NONE, null]);
  configs = await describedTopic(client, 'ops');
  assert.deepEqual(configs.get('segment.ms'), ['100000', 1]);
  assert.deepEqual(configs.get('cleanup.policy'), ['delete', 5]);
  assert.deepEqual(configs.get('delete.retention.ms'), [String(24 * 3600 * 1000), 5], "the broker's again");
});

test("Kafka's errors: unknown names and bad values INVALID_CONFIG, a missing topic UNKNOWN_TOPIC_OR_PARTITION, malformed requests INVALID_REQUEST", async (t) => {
  const { client } = await brokerAt(t, await tempDir(t));
  await createTopic(client, 'checked', 1);
  const cases: [string, Change[], number, string][] = [
    ['an unknown name', [['retention.msec', SET, '1']], ErrorCode.INVALID_CONFIG, 'Unknown topic config name: retention.msec'],
    ['a bad value', [['retention.ms', SET, 'soon']], ErrorCode.INVALID_CONFIG, 'Invalid value soon for configuration retention.ms: Not a number of type LONG'],
    ['out of range', [['segment.bytes', SET, '1']], ErrorCode.INVALID_CONFIG, 'Invalid value 1 for configuration segment.bytes: Value must be at least 14'],
    ['APPEND to no list', [['retention.ms', APPEND, '1']], ErrorCode.INVALID_CONFIG, 'Config value append is not allowed for config key: retention.ms'],
    [
      'a list subtracted to nothing',
      [['cleanup.policy', SUBTRACT, 'delete']],
      ErrorCode.INVALID_CONFIG,
      'Invalid value  for configuration cleanup.policy: String must be one of: compact, delete',
    ],
    [
      'null values',
      [
        ['retention.ms', SET, null],
        ['segment.ms', DELETE, null],
        ['cleanup.policy', APPEND, null],
      ],
      ErrorCode.INVALID_REQUEST,
      'Null value not supported for : retention.ms, cleanup.policy',
    ],
    [
      'a name twice',
      [
        ['retention.ms', SET, '1'],
        ['retention.ms', DELETE, null],
      ],
      ErrorCode.INVALID_REQUEST,
      'Error due to duplicate config keys',
    ],
    ['an unknown operation', [['retention.ms', 9, '1']], ErrorCode.INVALID_REQUEST, 'Unknown config operation 9 for config retention.ms'],
  ];
  for (const [what, changes, code, message] of cases) {
    for (const validateOnly of [true, false]) assert.deepEqual(await incremental(client, 'checked', changes, validateOnly), [code, message], what);
  }
  assert.deepEqual(await incremental(client, 'nope', [['retention.ms', SET, '1']]), [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no topic 'nope'"]);
  assert.deepEqual(await incremental(client, '1', [['log.dirs', SET, '/elsewhere']], false, 4), [
    ErrorCode.INVALID_REQUEST,
    "Invalid config value for resource ConfigResource(type=BROKER, name='1'): Cannot update these configs dynamically: Set(log.dirs)",
  ]);
  assert.deepEqual(await incremental(client, '', [], false, 4), [ErrorCode.NONE, null], 'nothing to alter');
  const twice = await client.request(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 1, {
    validateOnly: false,
    resources: ['checked', 'checked'].map((resourceName) => ({
      resourceType: 2,
      resourceName,
      configs: [{ name: 'retention.ms', configOperation: SET, value: '1' }],
    })),
  });
  assert.deepEqual(
    twice.responses.map((r) => [r.errorCode, r.errorMessage]),
    Array(2).fill([ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.']),
  );
  const configs = await describedTopic(client, 'checked');
  assert.ok(
    [...configs.values()].every(([, source]) => source !== 1),
    'nothing altered',
  );
});

test('kafkajs createTopics with configEntries and alterConfigs, and @platformatic/kafka incrementalAlterConfigs, configure a topic', async (t) => {
  const { broker, client } = await brokerAt(t, await tempDir(t));
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'clients', numPartitions: 1, configEntries: [{ name: 'segment.ms', value: '600000' }] }] });
    assert.deepEqual((await describedTopic(client, 'clients')).get('segment.ms'), ['600000', 1]);
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: TOPIC_RESOURCE, name: 'clients', configEntries: [{ name: 'retention.ms', value: '1000' }] }],
    });
    const seen = await admin.describeConfigs({ resources: [{ type: TOPIC_RESOURCE, name: 'clients', configNames: ['retention.ms'] }], includeSynonyms: true });
    const entry = seen.resources[0]!.configEntries[0]!;
    assert.deepEqual([entry.configValue, entry.readOnly, entry.isDefault], ['1000', false, false]);
  } finally {
    await admin.disconnect();
  }
  const plt = new Admin({ clientId: 'configs', bootstrapBrokers: [broker.bootstrap], retries: 0 });
  try {
    await plt.incrementalAlterConfigs({
      resources: [{ resourceType: 2, resourceName: 'clients', configs: [{ name: 'cleanup.policy', configOperation: 2, value: 'compact' }] }],
    });
  } finally {
    await plt.close();
  }
  const configs = await describedTopic(client, 'clients');
  assert.deepEqual(configs.get('cleanup.policy'), ['delete,compact', 1]);
  assert.deepEqual(configs.get('retention.ms'), ['1000', 1]);
  assert.deepEqual(configs.get('segment.ms'), [String(7 * 24 * 3600 * 1000), 5], "AlterConfigs replaced the topic's own configs");
});

test('an alteration answered is kept across kill -9 of brook serve', async (t) => {
  const first = await startServe();
  t.after(() => rm(first.dataDir, { recursive: true, force: true }));
  const client = await WireClient.connect(first.port);
  await createTopic(client, 'durable', 3);
  assert.deepEqual(
    await incremental(client, 'durable', [
      ['retention.bytes', SET, '5000'],
      ['message.timestamp.type', SET, 'LogAppendTime'],
    ]),
    [ErrorCode.NONE, null],
  );
  client.close();
  await first.stop('SIGKILL');
  const again = await startServe([], first.dataDir);
  t.after(() => again.stop());
  const next = await WireClient.connect(again.port);
  t.after(() => next.close());
  const configs = await describedTopic(next, 'durable');
  assert.deepEqual(configs.get('retention.bytes'), ['5000', 1]);
  assert.deepEqual(configs.get('message.timestamp.type'), ['LogAppendTime', 1]);
});
