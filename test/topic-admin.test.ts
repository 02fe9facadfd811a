import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { CreateTopicsRequest, CreateTopicsResponse, type CreateTopicsRequestCreatableTopic } from '../src/protocol/messages/create-topics.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../src/protocol/messages/create-partitions.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../src/protocol/messages/delete-topics.js';
import { DescribeConfigsRequest, DescribeConfigsResponse } from '../src/protocol/messages/describe-configs.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { WireClient } from './helpers/wire-client.js';

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker({ port: 0, retentionMs: 12345 });
  client = await WireClient.connect(broker.port);
});

after(async () => {
  client.close();
  await broker.close();
});

function topic(name: string, fields: Partial<CreateTopicsRequestCreatableTopic> = {}): CreateTopicsRequestCreatableTopic {
  return { name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [], ...fields };
}

async function create(topics: CreateTopicsRequestCreatableTopic[], validateOnly = false): Promise<CreateTopicsResponse['topics']> {
  return (await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, { topics, timeoutMs: 1000, validateOnly })).topics;
}

async function exists(name: string): Promise<boolean> {
  const res = await client.request(MetadataRequest, MetadataResponse, 12, {
    topics: [{ topicId: ZERO_UUID, name }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  return res.topics[0]!.errorCode === ErrorCode.NONE;
}

test('a name given twice in one request is answered once, INVALID_REQUEST, and not created; the others are', async () => {
  const answers = await create([topic('twice'), topic('once'), topic('twice')]);
  assert.deepEqual(
    answers.map((t) => [t.name, t.errorCode]),
    [
      ['twice', ErrorCode.INVALID_REQUEST],
      ['once', 0],
    ],
  );
  assert.equal(await exists('twice'), false);
  assert.equal(await exists('once'), true);
});

test('a name that differs from an existing topic only in . against _ is INVALID_TOPIC_EXCEPTION', async () => {
  assert.equal((await create([topic('metrics.cpu')]))[0]!.errorCode, 0);
  for (const validateOnly of [true, false]) {
    const [answer] = await create([topic('metrics_cpu')], validateOnly);
    assert.equal(answer!.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
    assert.match(answer!.errorMessage!, /collides with existing topic 'metrics.cpu'/);
  }
  assert.equal(await exists('metrics_cpu'), false);
});

test('replica assignments to this broker create the topic; others are refused as Kafka refuses them', async () => {
  const on = (...brokerIds: number[][]) => brokerIds.map((ids, partitionIndex) => ({ partitionIndex, brokerIds: ids }));
  const [placed] = await create([topic('placed', { numPartitions: -1, replicationFactor: -1, assignments: on([1], [1], [1]) })]);
  assert.deepEqual([placed!.errorCode, placed!.numPartitions, placed!.replicationFactor], [0, 3, 1]);
  const cases: [string, Partial<CreateTopicsRequestCreatableTopic>, number][] = [
    ['another broker', { numPartitions: -1, replicationFactor: -1, assignments: on([2]) }, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
    ['two replicas', { numPartitions: -1, replicationFactor: -1, assignments: on([1, 1]) }, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
    ['no replica', { numPartitions: -1, replicationFactor: -1, assignments: on([]) }, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
    ['a gap', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 1, brokerIds: [1] }] }, ErrorCode.INVALID_REPLICA_ASSIGNMENT],
    ['with a count too', { numPartitions: 1, replicationFactor: -1, assignments: on([1]) }, ErrorCode.INVALID_REQUEST],
  ];
  for (const [what, fields, code] of cases) assert.equal((await create([topic(`misplaced`, fields)]))[0]!.errorCode, code, what);
  assert.equal(await exists('misplaced'), false);
});

test('validateOnly answers what the create would, and creates nothing', async () => {
  const cases: [string, Partial<CreateTopicsRequestCreatableTopic>, number][] = [
    ['too many partitions', { numPartitions: 200_000 }, ErrorCode.INVALID_PARTITIONS],
    ['no partitions', { numPartitions: 0 }, ErrorCode.INVALID_PARTITIONS],
    ['three replicas', { replicationFactor: 3 }, ErrorCode.INVALID_REPLICATION_FACTOR],
    ['zero replicas', { replicationFactor: 0 }, ErrorCode.INVALID_REPLICATION_FACTOR],
    ['an unknown config', { configs: [{ name: 'retention.msec', value: '1000' }] }, ErrorCode.INVALID_CONFIG],
    ['a value of another type', { configs: [{ name: 'retention.ms', value: 'abc' }] }, ErrorCode.INVALID_CONFIG],
    ['a value not among the choices', { configs: [{ name: 'cleanup.policy', value: 'nonsense' }] }, ErrorCode.INVALID_CONFIG],
    ['a null value', { configs: [{ name: 'retention.ms', value: null }] }, ErrorCode.INVALID_REQUEST],
    [
      'configs of the right types',
      {
        configs: [
          { name: 'retention.ms', value: '60000' },
          { name: 'cleanup.policy', value: 'compact,delete' },
          { name: 'preallocate', value: 'true' },
        ],
      },
      0,
    ],
  ];
  for (const [what, fields, code] of cases) {
    for (const validateOnly of [true, false]) {
      const name = `checked-${validateOnly}`;
      const [answer] = await create([topic(name, fields)], validateOnly);
      assert.equal(answer!.errorCode, code, `${what}, validateOnly ${validateOnly}: ${answer!.errorMessage}`);
      assert.equal(await exists(name), code === 0 && !validateOnly, what);
      if (code === 0 && !validateOnly) assert.equal((await create([topic(name)]))[0]!.errorCode, ErrorCode.TOPIC_ALREADY_EXISTS);
    }
  }
});

test("the answer lists the configs in force: the topic's own as DYNAMIC_TOPIC_CONFIG, the rest the broker's, with synonyms when asked", async () => {
  const [answer] = await create([
    topic('configured', {
      configs: [
        { name: 'retention.ms', value: '60000' },
        { name: 'preallocate', value: 'true' },
      ],
    }),
  ]);
  const configs = new Map(answer!.configs!.map((c) => [c.name, c]));
  assert.deepEqual([configs.get('retention.ms')!.value, configs.get('retention.ms')!.configSource], ['60000', 1]);
  assert.deepEqual([configs.get('segment.bytes')!.value, configs.get('segment.bytes')!.configSource], [String(64 * 1024 * 1024), 5]);
  const described = await client.request(DescribeConfigsRequest, DescribeConfigsResponse, 4, {
    resources: [
      { resourceType: 2, resourceName: 'configured', configurationKeys: ['retention.ms', 'segment.bytes', 'preallocate', 'delete.retention.ms'] },
      { resourceType: 2, resourceName: 'no/such', configurationKeys: null },
    ],
    includeSynonyms: true,
    includeDocumentation: false,
  });
  const [topicResult, badName] = described.results;
  assert.deepEqual(
    topicResult!.configs.map((c) => [c.name, c.value, c.configSource, c.readOnly, c.synonyms.map((s) => [s.name, s.value, s.source])]),
    [
      ['delete.retention.ms', String(24 * 3600 * 1000), 5, false, [['log.cleaner.delete.retention.ms', String(24 * 3600 * 1000), 5]]],
      ['preallocate', 'true', 1, false, [['preallocate', 'true', 1]]],
      [
        'retention.ms',
        '60000',
        1,
        false,
        [
          ['retention.ms', '60000', 1],
          ['log.retention.ms', '12345', 4],
          ['log.retention.ms', String(7 * 24 * 3600 * 1000), 5],
        ],
      ],
      ['segment.bytes', String(64 * 1024 * 1024), 5, false, [['log.segment.bytes', String(64 * 1024 * 1024), 5]]],
    ],
  );
  assert.equal(badName!.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
});

test("a value outside Kafka's range for the config is INVALID_CONFIG, in Kafka's words", async () => {
  const [answer] = await create([topic('too-small', { configs: [{ name: 'segment.bytes', value: '10' }] })]);
  assert.equal(answer!.errorCode, ErrorCode.INVALID_CONFIG);
  assert.equal(answer!.errorMessage, 'Invalid value 10 for configuration segment.bytes: Value must be at least 14');
});

test('DeleteTopics: a topic named by both name and id, by neither, or twice is INVALID_REQUEST and stays', async () => {
  const created = await create([topic('kept-a'), topic('kept-b'), topic('gone')]);
  const [, b, gone] = created.map((t) => t.topicId);
  const wrongId = b!;
  const res = await client.request(DeleteTopicsRequest, DeleteTopicsResponse, 6, {
    topics: [
      { name: 'kept-a', topicId: wrongId },
      { name: null, topicId: ZERO_UUID },
      { name: null, topicId: b! },
      { name: null, topicId: b! },
      { name: 'gone', topicId: ZERO_UUID },
    ],
    topicNames: [],
    timeoutMs: 1000,
  });
  assert.deepEqual(
    res.responses.map((r) => [r.name, r.topicId, r.errorCode]),
    [
      ['kept-a', wrongId, ErrorCode.INVALID_REQUEST],
      [null, ZERO_UUID, ErrorCode.INVALID_REQUEST],
      [null, b, ErrorCode.INVALID_REQUEST],
      ['gone', gone, 0],
    ],
  );
  assert.deepEqual([await exists('kept-a'), await exists('kept-b'), await exists('gone')], [true, true, false]);
  const malformed = await client.request(DeleteTopicsRequest, DeleteTopicsResponse, 6, {
    topics: [
      { name: null, topicId: ZERO_UUID },
      { name: null, topicId: ZERO_UUID },
      { name: 'kept-a', topicId: wrongId },
      { name: 'kept-b', topicId: ZERO_UUID },
    ],
    topicNames: [],
    timeoutMs: 1000,
  });
  assert.deepEqual(
    malformed.responses.map((r) => [r.name, r.errorCode, r.errorMessage]),
    [
      [null, ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.'],
      [null, ErrorCode.INVALID_REQUEST, 'Neither topic name nor id were specified.'],
      ['kept-a', ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.'],
      ['kept-b', 0, null],
    ],
    'each malformed entry is answered alone, and names no topic',
  );
  assert.deepEqual([await exists('kept-a'), await exists('kept-b')], [true, false]);
  const byName = await client.request(DeleteTopicsRequest, DeleteTopicsResponse, 4, { topics: [], topicNames: ['kept-a', 'kept-a'], timeoutMs: 1000 });
  assert.deepEqual(
    byName.responses.map((r) => [r.name, r.errorCode]),
    [['kept-a', ErrorCode.INVALID_REQUEST]],
  );
  assert.equal(await exists('kept-a'), true);
});

test("a change the disk refuses is KAFKA_STORAGE_ERROR, Kafka's retriable answer for a log directory it cannot write, and leaves nothing behind", async () => {
  assert.equal((await create([topic('grown-later')]))[0]!.errorCode, ErrorCode.NONE);
  // A directory where topic metadata is written first: every change of it fails until it goes.
  const blocker = join(broker.dataDir, 'metadata.json.tmp');
  await mkdir(blocker);
  try {
    assert.equal((await create([topic('on-a-refusing-disk', { numPartitions: 2 })]))[0]!.errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
    const autoCreated = await client.request(MetadataRequest, MetadataResponse, 12, {
      topics: [{ topicId: ZERO_UUID, name: 'auto-on-a-refusing-disk' }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    assert.equal(autoCreated.topics[0]!.errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
    const grown = await client.request(CreatePartitionsRequest, CreatePartitionsResponse, 3, {
      topics: [{ name: 'grown-later', count: 2, assignments: null }],
      timeoutMs: 1000,
      validateOnly: false,
    });
    assert.equal(grown.results[0]!.errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
  } finally {
    await rm(blocker, { recursive: true });
  }
  assert.deepEqual(
    (await readdir(broker.dataDir)).filter((name) => name.includes('refusing-disk')),
    [],
    'no partition directory left',
  );
  assert.equal(await exists('on-a-refusing-disk'), false);
  assert.equal((await create([topic('on-a-refusing-disk')]))[0]!.errorCode, ErrorCode.NONE, 'once the disk takes writes again');
});
