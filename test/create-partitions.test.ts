/** CreatePartitions: a topic grows durably, clients use the new partitions at once, and Kafka's refusals. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker } from '../src/broker/start-broker.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../src/protocol/messages/create-partitions.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { consumeAll, kafkajs } from './helpers/kafkajs.js';
import { Admin } from './helpers/platformatic.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

type Wanted = CreatePartitionsRequest['topics'][number];

async function partitionCount(client: WireClient, topic: string): Promise<number> {
  const res = await client.request(MetadataRequest, MetadataResponse, 12, {
    topics: [{ topicId: ZERO_UUID, name: topic }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  return res.topics[0]!.partitions.length;
}

function grow(client: WireClient, topics: Wanted[], validateOnly = false, version = 3): Promise<CreatePartitionsResponse> {
  return client.request(CreatePartitionsRequest, CreatePartitionsResponse, version, { topics, timeoutMs: 1000, validateOnly });
}

test('kafkajs admin.createPartitions: Metadata shows the new partitions at once, producers and consumers use them, a restart keeps them', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-partitions-'));
  let broker = await startBroker({ port: 0, dataDir });
  t.after(async () => {
    await broker.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const kafka = kafkajs(broker.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'grown', numPartitions: 2 }] });
  await admin.createPartitions({ topicPartitions: [{ topic: 'grown', count: 5 }] });
  const { topics } = await admin.fetchTopicMetadata({ topics: ['grown'] });
  assert.deepEqual(topics[0]!.partitions.map((p) => p.partitionId).sort(), [0, 1, 2, 3, 4]);
  await admin.disconnect();

  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'grown', messages: [0, 1, 2, 3, 4].map((partition) => ({ partition, value: `to ${partition}` })) });
  await producer.disconnect();
  const consumed = await consumeAll(kafka, 'grown', 'grown-readers', 5);
  assert.deepEqual(
    consumed.map((c) => `${c.partition}:${c.value}`).sort(),
    [0, 1, 2, 3, 4].map((p) => `${p}:to ${p}`),
  );

  await broker.close();
  broker = await startBroker({ port: 0, dataDir });
  assert.deepEqual(
    (await readdir(dataDir)).filter((d) => d.startsWith('grown-')).sort(),
    [0, 1, 2, 3, 4].map((p) => `grown-${p}`),
  );
  const again = kafkajs(broker.bootstrap).admin();
  await again.connect();
  const offsets = await again.fetchTopicOffsets('grown');
  await again.disconnect();
  assert.deepEqual(
    offsets.map((o) => [o.partition, o.high]).sort(),
    [0, 1, 2, 3, 4].map((p) => [p, '1']),
  );
});

test('@platformatic/kafka Admin.createPartitions grows a topic, assignments naming this broker included', async (t) => {
  const broker = await startBroker({ port: 0 });
  t.after(() => broker.close());
  const admin = new Admin({ clientId: 'plt-partitions', bootstrapBrokers: [broker.bootstrap] });
  t.after(() => admin.close());
  await admin.createTopics({ topics: ['plt-grown'], partitions: 1, replicas: 1 });
  await admin.createPartitions({ topics: [{ name: 'plt-grown', count: 3 }] });
  await admin.createPartitions({ topics: [{ name: 'plt-grown', count: 4, assignments: [{ brokerIds: [1] }] }] });
  const metadata = await admin.metadata({ topics: ['plt-grown'], forceUpdate: true });
  assert.equal(metadata.topics.get('plt-grown')!.partitionsCount, 4);
});

test("CreatePartitions refusals, in Kafka's error codes and words; none of them grows the topic", async (t) => {
  const broker = await startBroker({ port: 0 });
  t.after(() => broker.close());
  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  await createTopic(client, 'fixed', 3);
  const refusal = async (topic: Wanted, version = 3): Promise<[number, string | null]> => {
    const { results } = await grow(client, [topic], false, version);
    assert.equal(results.length, 1);
    return [results[0]!.errorCode, results[0]!.errorMessage];
  };
  const ask = (count: number, assignments: number[][] | null = null): Wanted => ({
    name: 'fixed',
    count,
    assignments: assignments?.map((brokerIds) => ({ brokerIds })) ?? null,
  });

  assert.deepEqual(await refusal(ask(2)), [37, 'Topic currently has 3 partitions, which is higher than the requested 2.']);
  assert.deepEqual(await refusal(ask(2), 0), [37, 'Topic currently has 3 partitions, which is higher than the requested 2.']);
  assert.deepEqual(await refusal(ask(3)), [37, 'Topic already has 3 partitions.']);
  assert.deepEqual(await refusal(ask(100_001)), [37, 'A topic has at most 100000 partitions, not 100001.']);
  assert.deepEqual(await refusal({ name: 'absent', count: 4, assignments: null }), [3, "The topic 'absent' does not exist."]);
  assert.deepEqual(await refusal(ask(5, [[1], [2]])), [39, 'Unknown broker(s) in replica assignment: 2.']);
  assert.deepEqual(await refusal(ask(5, [[1]])), [39, 'Increasing the number of partitions by 2 but 1 assignments provided.']);
  assert.deepEqual(await refusal(ask(5, [[1], []])), [39, 'The manual partition assignment includes an empty replica list.']);
  assert.deepEqual(await refusal(ask(5, [[1], [1, 1]])), [39, 'Duplicate brokers not allowed in replica assignment: 1, 1.']);

  const validated = await grow(client, [ask(5)], true);
  assert.deepEqual(validated.results, [{ name: 'fixed', errorCode: 0, errorMessage: null }]);
  assert.equal(await partitionCount(client, 'fixed'), 3, 'validateOnly changes nothing');

  await createTopic(client, 'other', 1);
  const twice = await grow(client, [ask(4), { name: 'other', count: 2, assignments: null }, ask(5)]);
  assert.deepEqual(twice.results, [
    { name: 'fixed', errorCode: 42, errorMessage: 'Duplicate topic name.' },
    { name: 'other', errorCode: 0, errorMessage: null },
  ]);
  assert.equal(await partitionCount(client, 'fixed'), 3, 'a name asked for twice is not grown');
  assert.equal(await partitionCount(client, 'other'), 2);

  assert.deepEqual((await grow(client, [ask(5, [[1], [1]])], false, 0)).results, [{ name: 'fixed', errorCode: 0, errorMessage: null }]);
  assert.equal(await partitionCount(client, 'fixed'), 5);
});

test('two grows to one count racing on two connections: one grows the topic, the other is answered INVALID_PARTITIONS', async (t) => {
  const broker = await startBroker({ port: 0 });
  const clients = await Promise.all([0, 1, 2].map(() => WireClient.connect(broker.port)));
  t.after(async () => {
    for (const c of clients) c.close();
    await broker.close();
  });
  const [a, b, slow] = clients as [WireClient, WireClient, WireClient];
  await createTopic(a, 'raced', 1);
  // A create of many partitions, queued first, holds the grows' changes back until both have looked at the topic.
  const held = createTopic(slow, 'slow', 200);
  while (!existsSync(join(broker.dataDir, 'slow-0'))) await new Promise((resolve) => setTimeout(resolve, 2));
  const answers = await Promise.all([a, b].map((c) => grow(c, [{ name: 'raced', count: 2, assignments: null }])));
  await held;
  const results = answers.map((r) => [r.results[0]!.errorCode, r.results[0]!.errorMessage]).sort();
  assert.deepEqual(results, [
    [0, null],
    [37, 'Topic already has 2 partitions.'],
  ]);
  assert.equal(await partitionCount(a, 'raced'), 2);
});
