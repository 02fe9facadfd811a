/**
 * Generated garbage against a running broker: it stays up, stored data is unchanged, and a good
 * request afterwards still works. `npm run fuzz` runs the same properties far longer.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { API_SCHEMAS } from '../src/protocol/messages/apis.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { valuesBatch } from './helpers/batch.js';
import { WireClient } from './helpers/wire-client.js';
import { produceRequest } from './helpers/wire-produce.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const TOPIC = 'fuzzed';
let broker: Broker;
let logEnds: number[];

before(async () => {
  broker = await startBroker({ port: 0 });
  const c = await WireClient.connect(broker.port);
  const created = await c.request(CreateTopicsRequest, CreateTopicsResponse, 4, {
    topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  assert.equal(created.topics[0]?.errorCode, 0);
  for (const partition of [0, 1]) {
    const res = await c.request(ProduceRequest, ProduceResponse, 9, produceRequest(TOPIC, partition, valuesBatch(3)));
    assert.equal(res.responses[0]?.partitionResponses[0]?.errorCode, 0);
  }
  logEnds = await currentLogEnds(c);
  c.close();
});

after(async () => {
  await broker.close();
});

async function currentLogEnds(c: WireClient): Promise<number[]> {
  const res = await c.request(ListOffsetsRequest, ListOffsetsResponse, 1, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: TOPIC, partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 })) }],
    timeoutMs: 0,
  });
  return res.topics[0]!.partitions.map((p) => Number(p.offset));
}

/** Sends bytes on a fresh connection and waits for the broker to answer or close it. */
async function send(bytes: Uint8Array): Promise<void> {
  const c = await WireClient.connect(broker.port);
  c.sendRaw(Buffer.from(bytes));
  c.socket.end();
  while ((await c.nextFrame(10_000)) !== undefined);
}

async function assertUnharmed(): Promise<void> {
  const c = await WireClient.connect(broker.port);
  assert.deepEqual(await currentLogEnds(c), logEnds, 'stored data unchanged');
  c.close();
}

const framed = (body: Uint8Array): Buffer => {
  const out = Buffer.alloc(4 + body.length);
  out.writeInt32BE(body.length);
  out.set(body, 4);
  return out;
};

test('random byte streams', async () => {
  await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), send), { numRuns: RUNS });
  await assertUnharmed();
});

test('well-framed requests for every served api key and version with random bodies', async () => {
  const keys = Object.values(API_SCHEMAS).filter((s) => s !== undefined);
  const request = fc
    .record({ api: fc.constantFrom(...keys), version: fc.nat(20), correlationId: fc.integer(), body: fc.uint8Array({ maxLength: 400 }) })
    .map(({ api, version, correlationId, body }) => {
      const header = Buffer.alloc(8);
      header.writeInt16BE(api.apiKey);
      header.writeInt16BE(Math.min(version, api.maxVersion), 2);
      header.writeInt32BE(correlationId, 4);
      return framed(Buffer.concat([header, body]));
    });
  await fc.assert(
    fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 4 }), (frames) => send(Buffer.concat(frames))),
    { numRuns: RUNS },
  );
  await assertUnharmed();
});

test('produce requests whose batch is damaged inside the checksummed part are refused', async () => {
  const c = await WireClient.connect(broker.port);
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 20 }), fc.nat(), fc.integer({ min: 1, max: 255 }), fc.boolean(), async (count, where, xor, idempotent) => {
      const batch = valuesBatch(count, idempotent ? { producerId: 99n, producerEpoch: 0, baseSequence: 0 } : {});
      batch[21 + (where % (batch.length - 21))]! ^= xor;
      const res = await c.request(ProduceRequest, ProduceResponse, 9, produceRequest(TOPIC, where % 2, batch));
      assert.notEqual(res.responses[0]?.partitionResponses[0]?.errorCode, 0);
    }),
    { numRuns: RUNS },
  );
  c.close();
  await assertUnharmed();
});
