/** Faults as the wire shows them: exact answers, what is stored, the order of answers, closed connections. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { startBroker, type Broker } from '../src/index.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../src/protocol/messages/init-producer-id.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { valuesBatch } from './helpers/batch.js';
import { scrape } from './helpers/scrape.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceRequest } from './helpers/wire-produce.js';

const NOT_LEADER_OR_FOLLOWER = 6;
const LEADER_NOT_AVAILABLE = 5;
const COORDINATOR_NOT_AVAILABLE = 15;

let broker: Broker;
const logged: { msg: string; api?: string; action?: string }[] = [];

before(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as { msg: string }) });
  broker = await startBroker({ metricsPort: 0, logger });
});

after(() => broker.close());

async function connect(t: { after(fn: () => void): void }): Promise<WireClient> {
  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  return client;
}

async function highWatermarks(client: WireClient, topic: string, partitions: number[]): Promise<bigint[]> {
  const res = await client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 })) }],
    timeoutMs: 0,
  });
  return res.topics[0]!.partitions.sort((a, b) => a.partitionIndex - b.partitionIndex).map((p) => p.offset);
}

const metadataOf = (names: string[]): MetadataRequest => ({
  topics: names.map((name) => ({ topicId: ZERO_UUID, name })),
  allowAutoTopicCreation: true,
  includeClusterAuthorizedOperations: false,
  includeTopicAuthorizedOperations: false,
});

test('an error for one partition of a Produce: that partition is neither judged nor written, the other is', async (t) => {
  const client = await connect(t);
  await createTopic(client, 'split', 2);
  const fault = broker.faults.add({ api: 'Produce', topic: 'split', partition: 0, error: 'NOT_LEADER_OR_FOLLOWER', count: 1 });
  t.after(() => fault.remove());
  const batch = (): Buffer => valuesBatch(2, { producerId: 7n, producerEpoch: 0, baseSequence: 0 });
  const request: ProduceRequest = {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: [
      {
        name: 'split',
        partitionData: [
          { index: 0, records: batch() },
          { index: 1, records: batch() },
        ],
      },
    ],
  };
  const answer = await client.request(ProduceRequest, ProduceResponse, 9, request);
  const byIndex = answer.responses[0]!.partitionResponses.sort((a, b) => a.index - b.index).map((p) => [p.index, p.errorCode, p.baseOffset]);
  assert.deepEqual(byIndex, [
    [0, NOT_LEADER_OR_FOLLOWER, -1n],
    [1, 0, 0n],
  ]);
  assert.equal(fault.fired, 1);
  assert.deepEqual(await highWatermarks(client, 'split', [0, 1]), [0n, 2n]);
  // The retry is the batch's first arrival at partition 0: accepted, not a duplicate; partition 1's is one.
  const retry = await client.request(ProduceRequest, ProduceResponse, 9, request);
  assert.deepEqual(
    retry.responses[0]!.partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset]),
    [
      [0, 0, 0n],
      [1, 0, 0n],
    ],
  );
  const samples = await scrape(broker.metricsPort!);
  assert.equal(samples.get('brook_idempotent_batches_duplicate_total'), 1);
  assert.equal(samples.get('brook_faults_fired_total{api="Produce",action="error"}'), 1);
  assert.ok(logged.some((l) => l.msg === 'fault: answered a Produce request with NOT_LEADER_OR_FOLLOWER (6) for split-0' && l.action === 'error'));
});

test('a Fetch with an error is answered at once, not after its wait', async (t) => {
  const client = await connect(t);
  await createTopic(client, 'waiting', 1);
  const fault = broker.faults.add({ api: 'Fetch', topic: 'waiting', error: NOT_LEADER_OR_FOLLOWER });
  t.after(() => fault.remove());
  // Without the fault this Fetch would wait 20 s for data, past the wire client's 5 s.
  const answer = await client.request(FetchRequest, FetchResponse, 12, fetchOf('waiting', [0], { maxWaitMs: 20_000, minBytes: 1 }));
  const p = answer.responses[0]!.partitions[0]!;
  assert.deepEqual([p.partitionIndex, p.errorCode, p.highWatermark], [0, NOT_LEADER_OR_FOLLOWER, -1n]);
});

test('a Metadata error for one topic: that topic is answered with it and not created, the other is', async (t) => {
  const client = await connect(t);
  const fault = broker.faults.add({ api: 'Metadata', topic: 'not-yet', error: 'LEADER_NOT_AVAILABLE', count: 1 });
  const answer = await client.request(MetadataRequest, MetadataResponse, 12, metadataOf(['not-yet', 'made']));
  assert.deepEqual(answer.topics.map((t) => [t.name, t.errorCode, t.partitions.length]).sort(), [
    ['made', 0, 1],
    ['not-yet', LEADER_NOT_AVAILABLE, 0],
  ]);
  assert.equal(fault.fired, 1);
  const again = await client.request(MetadataRequest, MetadataResponse, 12, { ...metadataOf(['not-yet']), allowAutoTopicCreation: false });
  assert.equal(again.topics[0]!.errorCode, 3, 'UNKNOWN_TOPIC_OR_PARTITION: the faulted request created nothing');
  // In v0 a request left naming no topic asks for all of them: the faulted one is still answered once, with its error.
  broker.faults.add({ api: 'Metadata', topic: 'made', error: 'LEADER_NOT_AVAILABLE', count: 1 });
  const v0 = await client.request(MetadataRequest, MetadataResponse, 0, metadataOf(['made']));
  assert.deepEqual(
    v0.topics.filter((t) => t.name === 'made').map((t) => t.errorCode),
    [LEADER_NOT_AVAILABLE],
  );
});

test("an API whose requests name no topic answers the error as the request's own", async (t) => {
  const client = await connect(t);
  const fault = broker.faults.add({ api: 'InitProducerId', error: COORDINATOR_NOT_AVAILABLE, count: 1 });
  const init = { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 };
  const refused = await client.request(InitProducerIdRequest, InitProducerIdResponse, 4, init);
  assert.deepEqual([refused.errorCode, refused.producerId], [COORDINATOR_NOT_AVAILABLE, -1n]);
  const given = await client.request(InitProducerIdRequest, InitProducerIdResponse, 4, init);
  assert.deepEqual([given.errorCode, given.producerId > 0n, fault.fired], [0, true, 1], 'the count spent, the next is handled');
});

test('closeConnection: the answers before it go out, it and those after it are neither handled nor answered', async (t) => {
  const client = await connect(t);
  await createTopic(client, 'closed-on', 1);
  const fault = broker.faults.add({ api: 'Produce', topic: 'closed-on', closeConnection: true, count: 1 });
  const versions = { clientSoftwareName: 'faults', clientSoftwareVersion: '1' };
  client.sendRaw(
    Buffer.concat([
      client.frame(ApiVersionsRequest, 3, versions, 1),
      client.frame(ProduceRequest, 9, produceRequest('closed-on', 0, valuesBatch(1)), 2),
      client.frame(ApiVersionsRequest, 3, versions, 3),
    ]),
  );
  const first = await client.nextFrame();
  assert.equal(client.decode(first!, ApiVersionsResponse, 18, 3).correlationId, 1);
  assert.equal(await client.nextFrame(), undefined, 'closed after the first answer');
  assert.equal(fault.fired, 1);
  const other = await connect(t);
  assert.deepEqual(await highWatermarks(other, 'closed-on', [0]), [0n], 'the Produce was not handled');
});

test('dropResponse: the request is handled, its answer and those after it never come, and the connection closes', async (t) => {
  const client = await connect(t);
  await createTopic(client, 'lost-ack', 1);
  broker.faults.add({ api: 'Produce', topic: 'lost-ack', dropResponse: true, count: 1 });
  // ApiVersions is answered at once, the Produce once written: the cut still comes first.
  const versions = { clientSoftwareName: 'faults', clientSoftwareVersion: '1' };
  client.sendRaw(
    Buffer.concat([client.frame(ProduceRequest, 9, produceRequest('lost-ack', 0, valuesBatch(3))), client.frame(ApiVersionsRequest, 3, versions)]),
  );
  assert.equal(await client.nextFrame(), undefined);
  const other = await connect(t);
  assert.deepEqual(await highWatermarks(other, 'lost-ack', [0]), [3n], 'written');
  assert.ok(logged.some((l) => l.msg === 'fault: handled a Produce request, dropped its answer and closed the connection'));
});

test('an error for an acks=0 Produce, which has no answer to carry it, closes the connection as Kafka does', async (t) => {
  const client = await connect(t);
  await createTopic(client, 'unacked', 1);
  broker.faults.add({ api: 'Produce', topic: 'unacked', error: 'NOT_LEADER_OR_FOLLOWER', count: 1 });
  client.sendRaw(client.frame(ProduceRequest, 9, produceRequest('unacked', 0, valuesBatch(1), 0)));
  assert.equal(await client.nextFrame(), undefined);
  const other = await connect(t);
  assert.deepEqual(await highWatermarks(other, 'unacked', [0]), [0n]);
});

test('a delayed answer holds back the answers after it, which keep their order', async (t) => {
  const client = await connect(t);
  const fault = broker.faults.add({ api: 'Metadata', delayMs: 300, count: 1 });
  const versions = { clientSoftwareName: 'faults', clientSoftwareVersion: '1' };
  const start = Date.now();
  client.sendRaw(Buffer.concat([client.frame(MetadataRequest, 12, metadataOf([]), 1), client.frame(ApiVersionsRequest, 3, versions, 2)]));
  const first = await client.nextFrame();
  const second = await client.nextFrame();
  // A lower bound only; 5 ms for timers, which may fire a little before their time by the wall clock.
  assert.ok(Date.now() - start >= 295, `answered after ${Date.now() - start} ms`);
  assert.equal(client.decode(first!, MetadataResponse, 3, 12).correlationId, 1);
  assert.equal(client.decode(second!, ApiVersionsResponse, 18, 3).correlationId, 2);
  assert.equal(fault.fired, 1);
});
