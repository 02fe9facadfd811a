import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PYTHON_CLIENTS, run, runPython } from '../helpers/external.js';
import { kafkajs } from '../helpers/kafkajs.js';
import { Admin } from '../helpers/platformatic.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';

let serve: ServeProcess;
before(async () => {
  serve = await startServe();
});
after(async () => {
  await serve.stop();
  await rm(serve.dataDir, { recursive: true, force: true });
});

test('kafkajs admin: creates a topic with its partition count, and says so when it already exists', async () => {
  const admin = kafkajs(serve.bootstrap).admin();
  await admin.connect();
  try {
    assert.equal(await admin.createTopics({ topics: [{ topic: 'kafkajs-admin', numPartitions: 3 }], waitForLeaders: true }), true);
    assert.equal(await admin.createTopics({ topics: [{ topic: 'kafkajs-admin', numPartitions: 3 }] }), false);
    const { topics } = await admin.fetchTopicMetadata({ topics: ['kafkajs-admin'] });
    assert.deepEqual(topics[0]!.partitions.map((p) => p.partitionId).sort(), [0, 1, 2]);
  } finally {
    await admin.disconnect();
  }
});

test('@platformatic/kafka Admin: creates a topic with its partition count and lists it', async () => {
  const admin = new Admin({ clientId: 'plt-admin', bootstrapBrokers: [serve.bootstrap] });
  try {
    const [created] = await admin.createTopics({ topics: ['plt-admin'], partitions: 5, replicas: 1 });
    assert.equal(created!.partitions, 5);
    assert.ok((await admin.listTopics()).includes('plt-admin'));
    const metadata = await admin.metadata({ topics: ['plt-admin'] });
    assert.equal(metadata.topics.get('plt-admin')!.partitionsCount, 5);
  } finally {
    await admin.close();
  }
});

test('librdkafka and kafka-python create_partitions grow a topic, and hear INVALID_PARTITIONS for a count not above it', async () => {
  const admin = kafkajs(serve.bootstrap).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'python-grown', numPartitions: 1 }] });
  } finally {
    await admin.disconnect();
  }
  assert.deepEqual(await runPython('create_partitions.py', [serve.bootstrap, 'python-grown']), {
    'librdkafka count': 3,
    'librdkafka error': ['INVALID_PARTITIONS', 'Topic currently has 3 partitions, which is higher than the requested 2.'],
    'kafka-python count': 5,
    'kafka-python error': 'InvalidPartitionsError',
  });
});

/** Runs librdkafka's DeleteConsumerGroupOffsets, built from clients/delete_group_offsets.c, and parses its JSON line. */
async function deleteGroupOffsets(group: string, partitions: string[]): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), 'brook-rdkafka-'));
  try {
    const binary = join(dir, 'delete_group_offsets');
    execFileSync('gcc', ['-O2', '-Wall', '-o', binary, PYTHON_CLIENTS + 'delete_group_offsets.c', '-lrdkafka']);
    const r = await run(binary, [serve.bootstrap, group, ...partitions]);
    assert.equal(r.code, 0, `librdkafka exited ${r.code} (a signal: ${r.code === null}): ${r.stderr}`);
    return JSON.parse(r.stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('librdkafka DeleteConsumerGroupOffsets (which aborted the process when OffsetDelete was missing): an Empty group loses the offsets named; one consuming the topic keeps them', async () => {
  const kafka = kafkajs(serve.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  const consumer = kafka.consumer({ groupId: 'rd-group', maxWaitTimeInMs: 100 });
  try {
    await admin.createTopics({
      topics: [
        { topic: 'rd-offsets', numPartitions: 2 },
        { topic: 'rd-other', numPartitions: 1 },
      ],
    });
    await admin.setOffsets({
      groupId: 'rd-group',
      topic: 'rd-offsets',
      partitions: [
        { partition: 0, offset: '5' },
        { partition: 1, offset: '5' },
      ],
    });
    await admin.setOffsets({ groupId: 'rd-group', topic: 'rd-other', partitions: [{ partition: 0, offset: '3' }] });
    assert.deepEqual(await deleteGroupOffsets('rd-group', ['rd-offsets:0']), {
      error: 'NO_ERROR',
      groups: [{ group: 'rd-group', error: 'NO_ERROR', partitions: [['rd-offsets', 0, 'NO_ERROR']] }],
    });
    const [left] = await admin.fetchOffsets({ groupId: 'rd-group', topics: ['rd-offsets'] });
    assert.deepEqual(left!.partitions.map((p) => [p.partition, p.offset]).sort(), [
      [0, '-1'],
      [1, '5'],
    ]);

    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.connect();
    await consumer.subscribe({ topic: 'rd-offsets' });
    void consumer.run({ eachMessage: async () => {} });
    await joined;
    assert.deepEqual(await deleteGroupOffsets('rd-group', ['rd-offsets:1', 'rd-other:0']), {
      error: 'NO_ERROR',
      groups: [
        {
          group: 'rd-group',
          error: 'NO_ERROR',
          partitions: [
            ['rd-offsets', 1, 'GROUP_SUBSCRIBED_TO_TOPIC'],
            ['rd-other', 0, 'NO_ERROR'],
          ],
        },
      ],
    });
    assert.deepEqual(await deleteGroupOffsets('rd-nobody', ['rd-other:0']), { error: 'GROUP_ID_NOT_FOUND', groups: [] });
  } finally {
    await consumer.disconnect();
    await admin.disconnect();
  }
});

test("kafka-python hears Kafka's answers for ACLs without an authorizer", async () => {
  const admin = kafkajs(serve.bootstrap).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'python-refusals', numPartitions: 1 }] });
  } finally {
    await admin.disconnect();
  }
  assert.deepEqual(await runPython('admin_refusals.py', [serve.bootstrap, 'python-refusals']), {
    'kafka-python create_acls': ['SecurityDisabledError'],
    'kafka-python describe_acls': 'SecurityDisabledError',
  });
});

test('librdkafka and kafka-python create a topic with configs, alter them and describe them, each with its source', async () => {
  assert.deepEqual(await runPython('topic_configs.py', [serve.bootstrap, 'python-configs']), {
    created: { 'retention.ms': ['60000', 'DYNAMIC_TOPIC_CONFIG'], 'segment.bytes': [String(64 * 1024 * 1024), 'DEFAULT_CONFIG'] },
    altered: { 'retention.ms': ['5000', 'DYNAMIC_TOPIC_CONFIG'], 'cleanup.policy': ['compact', 'DYNAMIC_TOPIC_CONFIG'] },
    'bad value': ['INVALID_CONFIG', 'Invalid value soon for configuration retention.ms: Not a number of type LONG'],
    'kafka-python retention.ms': '7000',
  });
});
