/**
 * Topic creates and deletes racing on several connections. Topic changes run one at a time, so a
 * create of many partitions, queued first, holds later ones back while their requests are read:
 * each request's look at the topic then comes before the change it queues.
 */
import { test, before, after } from 'node:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../src/protocol/messages/delete-topics.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { WireClient } from './helpers/wire-client.js';

/** Enough partitions that creating them takes a good part of a second. */
const SLOW_PARTITIONS = 200;

let broker: Broker;
const clients: WireClient[] = [];

before(async () => {
  broker = await startBroker({ port: 0 });
});

after(async () => {
  for (const c of clients) c.close();
  await broker.close();
});

async function connect(): Promise<WireClient> {
  const c = await WireClient.connect(broker.port);
  clients.push(c);
  return c;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function createRequest(name: string, numPartitions: number): CreateTopicsRequest {
  return { topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false };
}

function metadataRequest(name: string, allowAutoTopicCreation: boolean): MetadataRequest {
  return { topics: [{ topicId: ZERO_UUID, name }], allowAutoTopicCreation, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false };
}

/** Starts a slow create on its own connection; returns once it has its turn, with its answer to come. */
async function holdTopicChanges(name: string): Promise<{ answer: Promise<CreateTopicsResponse> }> {
  const answer = (await connect()).request(CreateTopicsRequest, CreateTopicsResponse, 7, createRequest(name, SLOW_PARTITIONS));
  // Its first partition directory shows the create has its turn and holds later changes back.
  while (!existsSync(join(broker.dataDir, `${name}-0`))) await sleep(2);
  return { answer };
}

async function deleteByName(c: WireClient, name: string): Promise<void> {
  const res = await c.request(DeleteTopicsRequest, DeleteTopicsResponse, 4, { topics: [], topicNames: [name], timeoutMs: 1000 });
  assert.equal(res.responses[0]!.errorCode, 0, `deleting ${name}`);
}

test('concurrent deletes of one topic: one is answered NONE, the other UNKNOWN_TOPIC_OR_PARTITION (by id: UNKNOWN_TOPIC_ID)', async () => {
  const [a, b, admin] = [await connect(), await connect(), await connect()];
  for (const byId of [false, true]) {
    const created = await admin.request(CreateTopicsRequest, CreateTopicsResponse, 7, createRequest('victim', 2));
    const topicId = created.topics[0]!.topicId;
    const held = await holdTopicChanges('busy');
    const request: DeleteTopicsRequest = byId
      ? { topics: [{ name: null, topicId }], topicNames: [], timeoutMs: 1000 }
      : { topics: [], topicNames: ['victim'], timeoutMs: 1000 };
    const version = byId ? 6 : 4;
    const answers = await Promise.all([a, b].map((c) => c.request(DeleteTopicsRequest, DeleteTopicsResponse, version, request)));
    const codes = answers.map((r) => r.responses[0]!.errorCode).sort((x, y) => x - y);
    assert.deepEqual(codes, byId ? [0, 100] : [0, 3]);
    assert.equal((await held.answer).topics[0]!.errorCode, 0);
    await deleteByName(admin, 'busy');
  }
});

test('Metadata auto-creating a topic that a CreateTopics made first, and a delete then removed, answers the topic as created', async () => {
  const [creator, slow, asker, deleter, watcher] = [await connect(), await connect(), await connect(), await connect(), await connect()];
  const held = await holdTopicChanges('busy1');
  // Queued in this order behind busy1: create 'raced', create busy2, Metadata's create of 'raced'.
  const created = creator.request(CreateTopicsRequest, CreateTopicsResponse, 7, createRequest('raced', 1));
  await sleep(10);
  const held2 = slow.request(CreateTopicsRequest, CreateTopicsResponse, 7, createRequest('busy2', SLOW_PARTITIONS));
  await sleep(10);
  const described = asker.request(MetadataRequest, MetadataResponse, 12, metadataRequest('raced', true));
  // Once 'raced' exists busy2 is being created, and the delete queues behind Metadata's create.
  const exists = async () => (await watcher.request(MetadataRequest, MetadataResponse, 12, metadataRequest('raced', false))).topics[0]!.errorCode === 0;
  while (!(await exists())) await sleep(2);
  const deleted = deleter.request(DeleteTopicsRequest, DeleteTopicsResponse, 4, { topics: [], topicNames: ['raced'], timeoutMs: 1000 });

  const creation = (await created).topics[0]!;
  assert.equal(creation.errorCode, 0);
  const answer = (await described).topics[0]!;
  assert.deepEqual({ errorCode: answer.errorCode, name: answer.name, topicId: answer.topicId }, { errorCode: 0, name: 'raced', topicId: creation.topicId });
  assert.equal((await deleted).responses[0]!.errorCode, 0);
  assert.equal((await held.answer).topics[0]!.errorCode, 0);
  assert.equal((await held2).topics[0]!.errorCode, 0);
  // Every connection still answers.
  for (const c of [creator, slow, asker, deleter])
    assert.equal((await c.request(MetadataRequest, MetadataResponse, 12, metadataRequest('busy1', false))).topics[0]!.errorCode, 0);
  await deleteByName(deleter, 'busy1');
  await deleteByName(deleter, 'busy2');
});

test('CreateTopics that loses a race to Metadata auto-creation answers TOPIC_ALREADY_EXISTS', async () => {
  const [creator, asker] = [await connect(), await connect()];
  const held = await holdTopicChanges('busy');
  const described = asker.request(MetadataRequest, MetadataResponse, 12, metadataRequest('contested', true));
  await sleep(10);
  const created = creator.request(CreateTopicsRequest, CreateTopicsResponse, 7, createRequest('contested', 1));
  assert.equal((await described).topics[0]!.errorCode, 0);
  assert.equal((await created).topics[0]!.errorCode, 36);
  assert.equal((await held.answer).topics[0]!.errorCode, 0);
  await deleteByName(creator, 'busy');
});
