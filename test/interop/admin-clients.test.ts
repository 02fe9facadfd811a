import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { runPython } from '../helpers/external.js';
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
