import { test, before, after } from 'node:test';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../src/protocol/messages/init-producer-id.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../src/protocol/messages/describe-groups.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { buildBatch, valuesBatch, type BatchOptions } from './helpers/batch.js';
import { tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceBatch, produceRequest } from './helpers/wire-produce.js';
import { scrape } from './helpers/scrape.js';
import { seeded } from './helpers/seeded.js';

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker({ port: 0 });
  client = await WireClient.connect(broker.port);
  const created = await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: ['wire', 'plain', 'poll'].map((name) => ({ name, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] })),
    timeoutMs: 1000,
    validateOnly: false,
  });
  assert.deepEqual(
    created.topics.map((t) => t.errorCode),
    [0, 0, 0],
  );
});

after(async () => {
  client.close();
  await broker.close();
});

async function produce(topic: string, partition: number, count: number, options: BatchOptions, version = 9) {
  const res = await client.request(ProduceRequest, ProduceResponse, version, produceRequest(topic, partition, valuesBatch(count, options)));
  const p = res.responses[0]!.partitionResponses[0]!;
  return { errorCode: p.errorCode, baseOffset: Number(p.baseOffset) };
}

async function listOffset(topic: string, partition: number, timestamp: bigint, version = 7, c = client): Promise<{ offset: number; timestamp: number }> {
  const res = await c.request(ListOffsetsRequest, ListOffsetsResponse, version, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }] }],
    timeoutMs: 0,
  });
  const p = res.topics[0]!.partitions[0]!;
  return { offset: Number(version === 0 ? (p.oldStyleOffsets[0] ?? -1n) : p.offset), timestamp: Number(p.timestamp) };
}

async function latestOffset(topic: string, partition: number): Promise<number> {
  return (await listOffset(topic, partition, -1n)).offset;
}

function fetchRequest(topic: string, partition: number, offset: number, maxWaitMs = 0, minBytes = 0, maxBytes = 1 << 20): FetchRequest {
  return fetchOf(topic, [partition], { offset, maxWaitMs, minBytes, maxBytes });
}

/** Headers of every batch stored in a partition, read back with Fetch. */
async function storedBatches(topic: string, partition: number) {
  const res = await client.request(FetchRequest, FetchResponse, 12, fetchRequest(topic, partition, 0));
  const records = res.responses[0]!.partitions[0]!.records ?? Buffer.alloc(0);
  const headers = [];
  for (let pos = 0; pos < records.length;) {
    const h = readBatchHeader(records, pos);
    headers.push(h);
    pos += h.size;
  }
  return headers;
}

test('the idempotence rules on the wire: duplicate, gap, new epoch, zombie', async () => {
  const init = await client.request(InitProducerIdRequest, InitProducerIdResponse, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60000,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal(init.errorCode, 0);
  const producerId = init.producerId;
  assert.ok(producerId > 0n);
  const as = (epoch: number, seq: number) => ({ producerId, producerEpoch: epoch, baseSequence: seq });

  assert.deepEqual(await produce('wire', 0, 3, as(0, 0)), { errorCode: 0, baseOffset: 0 });
  assert.deepEqual(await produce('wire', 0, 2, as(0, 3)), { errorCode: 0, baseOffset: 3 });
  assert.deepEqual(await produce('wire', 0, 2, as(0, 3)), { errorCode: 0, baseOffset: 3 }, 'a retry gets the first offset');
  assert.deepEqual(await produce('wire', 0, 3, as(0, 0)), { errorCode: 0, baseOffset: 0 }, 'an older window entry too');
  assert.equal((await produce('wire', 0, 1, as(0, 7))).errorCode, 45, 'a gap is OUT_OF_ORDER_SEQUENCE_NUMBER');
  assert.equal((await produce('wire', 1, 1, as(0, 1))).errorCode, 45, 'no state on this partition: must start at 0');
  assert.deepEqual(await produce('wire', 0, 1, as(1, 0)), { errorCode: 0, baseOffset: 5 }, 'a new epoch from 0');
  assert.equal((await produce('wire', 0, 1, as(0, 5))).errorCode, 47, 'the old epoch is INVALID_PRODUCER_EPOCH');
  assert.equal(await latestOffset('wire', 0), 6);
  assert.deepEqual(
    (await storedBatches('wire', 0)).map((h) => [h.baseOffset, h.recordCount, h.producerEpoch, h.baseSequence]),
    [
      [0, 3, 0, 0],
      [3, 2, 0, 3],
      [5, 1, 1, 0],
    ],
    'each accepted batch is stored once',
  );
});

test('the same batch bytes sent twice are stored once and answered with the same offset', async () => {
  const batch = valuesBatch(4, { producerId: 7777n, producerEpoch: 0, baseSequence: 0 });
  const first = await client.request(ProduceRequest, ProduceResponse, 7, produceRequest('wire', 1, Buffer.from(batch)));
  const second = await client.request(ProduceRequest, ProduceResponse, 7, produceRequest('wire', 1, Buffer.from(batch)));
  assert.equal(first.responses[0]!.partitionResponses[0]!.baseOffset, 0n);
  assert.equal(second.responses[0]!.partitionResponses[0]!.errorCode, 0);
  assert.equal(second.responses[0]!.partitionResponses[0]!.baseOffset, 0n);
  assert.equal(await latestOffset('wire', 1), 4);
});

test('plain producers (producer id -1) are appended without checks; acks=0 gets no response', async () => {
  assert.deepEqual(await produce('plain', 0, 2, {}, 3), { errorCode: 0, baseOffset: 0 });
  assert.deepEqual(await produce('plain', 0, 2, {}, 3), { errorCode: 0, baseOffset: 2 });
  client.sendRaw(client.frame(ProduceRequest, 9, produceRequest('plain', 0, valuesBatch(1), 0), 900));
  client.sendRaw(client.frame(ProduceRequest, 9, produceRequest('plain', 0, valuesBatch(1), 1), 901));
  const frame = await client.nextFrame();
  const { correlationId, body } = client.decode(frame!, ProduceResponse, 0, 9);
  assert.equal(correlationId, 901, 'the acks=0 request had no response');
  assert.equal(body.responses[0]!.partitionResponses[0]!.baseOffset, 5n);
});

test('acks=0 with an error closes the connection, as Kafka does, since no answer can carry it', async (t) => {
  const c = await WireClient.connect(broker.port);
  t.after(() => c.close());
  c.sendRaw(c.frame(ProduceRequest, 9, produceRequest('plain', 1, valuesBatch(1), 0), 1));
  c.sendRaw(c.frame(ProduceRequest, 9, produceRequest('no-such-topic', 0, valuesBatch(1), 0), 2));
  assert.equal(await c.nextFrame(), undefined, 'closed, without an answer');
  assert.equal(await latestOffset('plain', 1), 1, 'the good acks=0 batch before it is stored');
});

test('a corrupt batch is refused and nothing is appended', async () => {
  const before = await latestOffset('plain', 1);
  const bad = valuesBatch(3);
  bad[bad.length - 2]! ^= 0xff;
  const res = await client.request(ProduceRequest, ProduceResponse, 9, produceRequest('plain', 1, bad));
  assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, 2);
  assert.equal(await latestOffset('plain', 1), before);
});

test('pipelined requests are answered in request order', async () => {
  const ids = Array.from({ length: 20 }, (_, i) => 1000 + i);
  client.sendRaw(
    Buffer.concat(
      ids.map((id, i) =>
        i % 2 === 0
          ? client.frame(ProduceRequest, 9, produceRequest('plain', 1, valuesBatch(1)), id)
          : client.frame(ApiVersionsRequest, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }, id),
      ),
    ),
  );
  const seen: number[] = [];
  for (const _ of ids) seen.push((await client.nextFrame())!.readInt32BE(0));
  assert.deepEqual(seen, ids);
});

test('large requests from several connections at once, written in random pieces, are stored byte for byte', async () => {
  const random = seeded(11);
  await createTopic(client, 'pieces', 3);
  const writers = await Promise.all([0, 1, 2].map(() => WireClient.connect(broker.port)));
  const sent = writers.map((_, partition) => {
    let baseSequence = 0;
    return Array.from({ length: 5 }, () => {
      const count = 1 + Math.floor(random() * 1500);
      const records = Array.from({ length: count }, (_, i) => ({ value: Buffer.alloc(100, partition * 7 + i) }));
      const batch = buildBatch(records, { producerId: 7000n + BigInt(partition), producerEpoch: 0, baseSequence });
      baseSequence += count;
      return batch;
    });
  });
  await Promise.all(
    writers.map(async (writer, partition) => {
      const bytes = Buffer.concat(sent[partition]!.map((batch) => writer.frame(ProduceRequest, 9, produceRequest('pieces', partition, batch))));
      for (let at = 0; at < bytes.length;) {
        const n = 1 + Math.floor(random() * 70_000);
        writer.sendRaw(bytes.subarray(at, at + n));
        at += n;
        await new Promise((resolve) => setImmediate(resolve));
      }
      let expectedOffset = 0;
      for (const batch of sent[partition]!) {
        const { body } = writer.decode((await writer.nextFrame())!, ProduceResponse, ProduceRequest.apiKey, 9);
        const p = body.responses[0]!.partitionResponses[0]!;
        assert.deepEqual([p.errorCode, Number(p.baseOffset)], [0, expectedOffset]);
        expectedOffset += readBatchHeader(batch, 0).recordCount;
      }
      writer.close();
    }),
  );
  for (const [partition, batches] of sent.entries()) {
    const res = await client.request(FetchRequest, FetchResponse, 12, fetchRequest('pieces', partition, 0));
    const stored = res.responses[0]!.partitions[0]!.records!;
    let pos = 0;
    for (const [k, batch] of batches.entries()) {
      const size = readBatchHeader(stored, pos).size;
      // From the magic byte on, as sent; the base offset and leader epoch before it are the broker's.
      assert.ok(stored.subarray(pos + 16, pos + size).equals(batch.subarray(16)), `partition ${partition} batch ${k}`);
      pos += size;
    }
    assert.equal(pos, stored.length);
  }
});

test('fetched bytes stay intact while a slow consumer has not taken them, though other fetches reuse memory', async () => {
  await createTopic(client, 'slow', 1);
  const batches = Array.from({ length: 60 }, (_, i) => buildBatch(Array.from({ length: 1000 }, (_, j) => ({ value: Buffer.alloc(100, (i * 7 + j) & 0xff) }))));
  for (const batch of batches) assert.equal((await produceBatch(client, 'slow', 0, batch)).errorCode, 0);
  // Each fetch answers with one batch (limit 1 byte): the same size of memory every time.
  const oneBatch = (c: WireClient, i: number): Buffer => c.frame(FetchRequest, 12, fetchRequest('slow', 0, i * 1000, 0, 0, 1));
  const storedAs = (frame: Buffer, i: number): void => {
    const records = client.decode(frame, FetchResponse, FetchRequest.apiKey, 12).body.responses[0]!.partitions[0]!.records!;
    assert.ok(records.subarray(16).equals(batches[i]!.subarray(16)), `batch ${i} as produced`);
  };
  const slow = await WireClient.connect(broker.port);
  slow.socket.pause();
  for (let i = 0; i < batches.length; i++) slow.sendRaw(oneBatch(slow, i));
  await new Promise((r) => setTimeout(r, 300));
  // Meanwhile another consumer reads the same batches in the reverse order, in memory freed and taken again.
  const fast = await WireClient.connect(broker.port);
  for (let i = batches.length - 1; i >= 0; i--) {
    fast.sendRaw(oneBatch(fast, i));
    storedAs((await fast.nextFrame())!, i);
  }
  slow.socket.resume();
  for (let i = 0; i < batches.length; i++) storedAs((await slow.nextFrame())!, i);
  slow.close();
  fast.close();
});

test('a long-poll fetch is answered as soon as a produce arrives', async () => {
  const poller = await WireClient.connect(broker.port);
  const polled = poller.request(FetchRequest, FetchResponse, 12, fetchRequest('poll', 0, 0, 60_000, 1));
  await new Promise((r) => setTimeout(r, 100));
  await produce('poll', 0, 2, {});
  const res = await polled; // would take 60 s (past the test timeout) if the produce did not wake it
  const p = res.responses[0]!.partitions[0]!;
  assert.equal(p.highWatermark, 2n);
  assert.equal(readBatchHeader(p.records!).recordCount, 2);
  poller.close();
});

test('ApiVersions of an unknown version is answered with UNSUPPORTED_VERSION in the v0 layout', async () => {
  const c = await WireClient.connect(broker.port);
  // A future client's ApiVersions v99: header v2, then a body this broker cannot know.
  const frame99 = c.frame(ApiVersionsRequest, 3, { clientSoftwareName: 'future', clientSoftwareVersion: '9' }, 5);
  frame99.writeInt16BE(99, 6);
  c.sendRaw(frame99);
  const frame = await c.nextFrame();
  const { correlationId, body } = c.decode(frame!, ApiVersionsResponse, 18, 0);
  assert.equal(correlationId, 5);
  assert.equal(body.errorCode, 35);
  assert.deepEqual(
    body.apiKeys.map((k) => k.apiKey),
    [18],
  );
  c.close();
});

test("ApiVersions lists what is served, by api key; from v3 a client software name outside Kafka's pattern is INVALID_REQUEST", async () => {
  const res = await client.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'x', clientSoftwareVersion: '1' });
  const byKey = new Map(res.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  assert.deepEqual(byKey.get(0), [0, 12]);
  assert.deepEqual(byKey.get(18), [0, 4]);
  assert.ok(byKey.has(22) && byKey.has(3) && byKey.has(1) && byKey.has(2) && byKey.has(19));
  const keys = res.apiKeys.map((k) => k.apiKey);
  assert.deepEqual(
    keys,
    [...keys].sort((a, b) => a - b),
  );
  for (const [clientSoftwareName, clientSoftwareVersion] of [
    ['!!bad name', '1'],
    ['librdkafka', '2.0.2 beta'],
    ['', '1'],
  ]) {
    const refused = await client.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName, clientSoftwareVersion });
    assert.deepEqual([refused.errorCode, refused.apiKeys], [ErrorCode.INVALID_REQUEST, []], `${clientSoftwareName} ${clientSoftwareVersion}`);
  }
  const named = await client.request(ApiVersionsRequest, ApiVersionsResponse, 3, {
    clientSoftwareName: 'confluent-kafka-python',
    clientSoftwareVersion: '2.0.2-rdkafka-2.0.2',
  });
  assert.equal(named.errorCode, 0);
});

test('ListOffsets: earliest, latest, by timestamp to the record, and the largest timestamp', async () => {
  const t0 = 1_700_000_000_000;
  const records = (deltas: number[]) => deltas.map((timestampDelta, i) => ({ value: Buffer.from(`t${i}`), timestampDelta }));
  const send = async (deltas: number[], base: number) => {
    const res = await client.request(ProduceRequest, ProduceResponse, 9, produceRequest('times', 0, buildBatch(records(deltas), { baseTimestamp: base })));
    assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, 0);
  };
  await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name: 'times', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  assert.deepEqual(await listOffset('times', 0, -3n), { offset: -1, timestamp: -1 }, 'empty: no largest timestamp');
  await send([0, 10, 20], t0); // offsets 0..2 at t0, t0+10, t0+20
  await send([0, 500, 30], t0 + 100); // offsets 3..5 at t0+100, t0+600, t0+130
  assert.equal((await listOffset('times', 0, -2n)).offset, 0);
  assert.equal((await listOffset('times', 0, -1n)).offset, 6);
  assert.deepEqual(await listOffset('times', 0, BigInt(t0 + 15)), { offset: 2, timestamp: t0 + 20 }, 'inside the first batch');
  assert.deepEqual(await listOffset('times', 0, BigInt(t0 + 101)), { offset: 4, timestamp: t0 + 600 });
  assert.deepEqual(await listOffset('times', 0, BigInt(t0 + 601)), { offset: -1, timestamp: -1 }, 'after everything');
  assert.deepEqual(await listOffset('times', 0, -3n), { offset: 4, timestamp: t0 + 600 }, 'the record with the largest timestamp');
});

test('ListOffsets v0 answers in old-style offsets', async (t) => {
  // Kafka 4.0 removed ListOffsets v0; 3.9 serves it.
  const older = await startBroker({ kafkaVersion: '3.9' });
  t.after(() => older.close());
  const c = await WireClient.connect(older.port);
  t.after(() => c.close());
  await createTopic(c, 'times', 1);
  const t0 = 1_700_000_000_000;
  const batch = buildBatch(
    [0, 10, 20].map((timestampDelta, i) => ({ value: Buffer.from(`t${i}`), timestampDelta })),
    { baseTimestamp: t0 },
  );
  assert.equal((await produceBatch(c, 'times', 0, batch)).errorCode, 0);
  assert.equal((await listOffset('times', 0, BigInt(t0 + 15), 0, c)).offset, 2);
  assert.equal((await listOffset('times', 0, -1n, 0, c)).offset, 3);
});

test('ListOffsets naming a partition twice answers each mention INVALID_REQUEST, as Kafka does', async () => {
  const res = await client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: 'plain', partitions: [0, 1, 0].map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 })) }],
    timeoutMs: 0,
  });
  assert.deepEqual(
    res.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode]),
    [
      [0, ErrorCode.INVALID_REQUEST],
      [1, 0],
      [0, ErrorCode.INVALID_REQUEST],
    ],
  );
});

test('ListOffsets and Fetch check the leader epoch a client names: older FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH', async () => {
  assert.equal((await produce('plain', 0, 1, {})).errorCode, 0);
  const listed = async (currentLeaderEpoch: number) => {
    const res = await client.request(ListOffsetsRequest, ListOffsetsResponse, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: 'plain', partitions: [{ partitionIndex: 0, currentLeaderEpoch, timestamp: -1n, maxNumOffsets: 1 }] }],
      timeoutMs: 0,
    });
    return res.topics[0]!.partitions[0]!.errorCode;
  };
  const fetched = async (currentLeaderEpoch: number) => {
    const res = await client.request(FetchRequest, FetchResponse, 12, fetchOf('plain', [0], { currentLeaderEpoch }));
    return res.responses[0]!.partitions[0]!.errorCode;
  };
  for (const ask of [listed, fetched]) {
    assert.deepEqual(
      [await ask(-1), await ask(0), await ask(5), await ask(-3)],
      [0, 0, ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.FENCED_LEADER_EPOCH],
      ask.name,
    );
  }
});

test('an epoch bump by InitProducerId fences the old epoch on every partition, answers its retry the same, and survives a restart', async (t) => {
  const dataDir = await tempDataDir();
  let b = await startBroker({ port: 0, dataDir });
  let c = await WireClient.connect(b.port);
  t.after(async () => {
    c.close();
    await b.close();
  });
  const init = (producerId: bigint, producerEpoch: number) =>
    c.request(InitProducerIdRequest, InitProducerIdResponse, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId, producerEpoch });
  const send = async (partition: number, epoch: number, seq: number) => {
    const res = await c.request(
      ProduceRequest,
      ProduceResponse,
      9,
      produceRequest('bumped', partition, valuesBatch(1, { producerId, producerEpoch: epoch, baseSequence: seq })),
    );
    return res.responses[0]!.partitionResponses[0]!.errorCode;
  };
  await c.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name: 'bumped', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  const { producerId } = await init(-1n, -1);
  assert.equal(await send(0, 0, 0), 0);
  assert.equal(await send(1, 0, 0), 0);
  assert.deepEqual(await init(producerId, 0), {
    throttleTimeMs: 0,
    errorCode: 0,
    producerId,
    producerEpoch: 1,
    ongoingTxnProducerId: -1n,
    ongoingTxnProducerEpoch: -1,
  });
  assert.equal(await send(0, 1, 0), 0);
  assert.equal(await send(1, 0, 1), 47, 'fenced on a partition the new epoch has not written to');
  assert.deepEqual(
    await init(producerId, 0),
    { throttleTimeMs: 0, errorCode: 0, producerId, producerEpoch: 1, ongoingTxnProducerId: -1n, ongoingTxnProducerEpoch: -1 },
    'a retried bump gets the same answer',
  );
  assert.equal((await init(producerId, 7)).errorCode, 47, 'a bump must name the current epoch');
  c.close();
  await b.close();
  b = await startBroker({ port: 0, dataDir });
  c = await WireClient.connect(b.port);
  assert.equal(await send(1, 0, 1), 47, 'still fenced after a restart');
  assert.equal(await send(1, 1, 0), 0, 'the new epoch starts at 0 there');
  assert.equal((await init(producerId, 1)).producerEpoch, 2);
});

test('topics created at once from two connections: both Metadata requests see the same topic, CreateTopics says it exists', async (t) => {
  const [a, b] = await Promise.all([WireClient.connect(broker.port), WireClient.connect(broker.port)]);
  t.after(() => {
    a.close();
    b.close();
  });
  const metadataOf = (c: WireClient) =>
    c.request(MetadataRequest, MetadataResponse, 9, {
      topics: [{ topicId: ZERO_UUID, name: 'raced' }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
  const [ma, mb] = await Promise.all([metadataOf(a), metadataOf(b)]);
  assert.equal(ma.topics[0]!.errorCode, 0);
  assert.equal(mb.topics[0]!.errorCode, 0);
  const create = (c: WireClient) =>
    c.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [{ name: 'raced-create', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 1000,
      validateOnly: false,
    });
  const codes = (await Promise.all([create(a), create(b)])).map((r) => r.topics[0]!.errorCode).sort();
  assert.deepEqual(codes, [0, 36]);
});

test('Metadata and DescribeGroups report every operation as authorized when asked, as Kafka does without an authorizer', async () => {
  const asked = async (include: boolean) =>
    client.request(MetadataRequest, MetadataResponse, 10, {
      topics: [{ topicId: ZERO_UUID, name: 'plain' }],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: include,
      includeTopicAuthorizedOperations: include,
    });
  const field = (...codes: number[]) => codes.reduce((sum, code) => sum + 2 ** code, 0);
  const yes = await asked(true);
  // READ WRITE CREATE DELETE ALTER DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS, by AclOperation code.
  assert.equal(yes.topics[0]!.topicAuthorizedOperations, field(3, 4, 5, 6, 7, 8, 10, 11));
  // CREATE ALTER DESCRIBE CLUSTER_ACTION DESCRIBE_CONFIGS ALTER_CONFIGS IDEMPOTENT_WRITE.
  assert.equal(yes.clusterAuthorizedOperations, field(5, 7, 8, 9, 10, 11, 12));
  const no = await asked(false);
  assert.deepEqual([no.topics[0]!.topicAuthorizedOperations, no.clusterAuthorizedOperations], [-2147483648, -2147483648]);
  const groups = await client.request(DescribeGroupsRequest, DescribeGroupsResponse, 5, { groups: ['nobody'], includeAuthorizedOperations: true });
  assert.equal(groups.groups[0]!.authorizedOperations, field(3, 6, 8), 'READ DELETE DESCRIBE');
});

test('Metadata answers a topic asked for twice once; Fetch under read_committed lists no aborted transactions, as an empty list', async () => {
  const metadata = await client.request(MetadataRequest, MetadataResponse, 12, {
    topics: [
      { topicId: ZERO_UUID, name: 'plain' },
      { topicId: ZERO_UUID, name: 'wire' },
      { topicId: ZERO_UUID, name: 'plain' },
    ],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.deepEqual(
    metadata.topics.map((t) => t.name),
    ['plain', 'wire'],
  );
  for (const [isolationLevel, aborted] of [
    [0, null],
    [1, []],
  ] as const) {
    const res = await client.request(FetchRequest, FetchResponse, 12, { ...fetchOf('plain', [0]), isolationLevel });
    assert.deepEqual(res.responses[0]!.partitions[0]!.abortedTransactions, aborted, `isolation level ${isolationLevel}`);
  }
});

test('Metadata v10 and v11 naming a topic by id are refused with INVALID_REQUEST on every topic, as Kafka does; v12 answers by id', async (t) => {
  const c = await WireClient.connect(broker.port);
  t.after(() => c.close());
  const metadataOf = async (version: number, topics: { topicId: string; name: string | null }[]) => {
    const res = await c.request(MetadataRequest, MetadataResponse, version, {
      topics,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    return res.topics.map(({ errorCode, name, topicId }) => ({ errorCode, name, topicId }));
  };
  const [wire] = await metadataOf(12, [{ topicId: ZERO_UUID, name: 'wire' }]);
  const unknownId = '12345678-1234-1234-1234-123456789abc';
  for (const version of [10, 11]) {
    assert.deepEqual(
      await metadataOf(version, [
        { topicId: wire!.topicId, name: null },
        { topicId: ZERO_UUID, name: 'plain' },
      ]),
      [
        { errorCode: 42, name: '', topicId: wire!.topicId },
        { errorCode: 42, name: 'plain', topicId: ZERO_UUID },
      ],
    );
    assert.deepEqual(await metadataOf(version, [{ topicId: unknownId, name: 'wire' }]), [{ errorCode: 42, name: 'wire', topicId: unknownId }]);
    assert.deepEqual(await metadataOf(version, [{ topicId: ZERO_UUID, name: 'wire' }]), [wire], 'the connection is still served');
  }
  assert.deepEqual(
    await metadataOf(12, [
      { topicId: wire!.topicId, name: null },
      { topicId: unknownId, name: null },
    ]),
    [wire, { errorCode: 100, name: null, topicId: unknownId }],
  );
});

test('a partition whose log failed answers KAFKA_STORAGE_ERROR, to retries of an idempotent batch too; the broker and other partitions carry on', async (t) => {
  const dataDir = await tempDataDir();
  const b = await startBroker({ port: 0, dataDir, segmentBytes: 1024, metricsPort: 0 });
  const c = await WireClient.connect(b.port);
  const failedPartitions = async () => (await scrape(b.metricsPort!)).get('brook_failed_partitions');
  t.after(async () => {
    c.close();
    await b.close();
  });
  await c.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name: 'doomed', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  const init = await c.request(InitProducerIdRequest, InitProducerIdResponse, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60000,
    producerId: -1n,
    producerEpoch: -1,
  });
  const idempotent = (baseSequence: number): BatchOptions => ({ producerId: init.producerId, producerEpoch: 0, baseSequence });
  const send = async (partition: number, count: number, options: BatchOptions = {}) => {
    const res = await c.request(ProduceRequest, ProduceResponse, 9, produceRequest('doomed', partition, valuesBatch(count, options)));
    return res.responses[0]!.partitionResponses[0]!.errorCode;
  };
  assert.equal(await send(0, 2, idempotent(0)), 0);
  assert.equal(await failedPartitions(), 0);
  // The next segment's file name is taken by a directory, so rolling to it fails.
  await mkdir(join(dataDir, 'doomed-0', '00000000000000000002.log'));
  // 90 records: under segment.bytes, which the log refuses a batch past, but over it with the first.
  assert.equal(await send(0, 90, idempotent(2)), 56, 'the batch whose write failed');
  // Its retries, whole or split smaller, are not judged against a batch the disk never got.
  assert.equal(await send(0, 90, idempotent(2)), 56, 'the same batch again');
  assert.equal(await send(0, 7, idempotent(2)), 56, 'not OUT_OF_ORDER_SEQUENCE_NUMBER, which clients do not retry');
  assert.equal(await send(0, 1), 56, 'the failed partition takes nothing more');
  assert.equal(await send(1, 1), 0, 'another partition is unaffected');
  assert.equal(await failedPartitions(), 1, 'the gauge an operator watches says so');
});
