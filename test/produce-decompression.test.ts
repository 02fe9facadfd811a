/**
 * Large compressed batches are decompressed off the event loop: other connections are answered
 * meanwhile, and each partition's batches are still judged and stored in the order they arrived.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { crc32c } from '../src/protocol/crc32c.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { buildBatch, type BatchOptions, type TestRecord } from './helpers/batch.js';
import { codecs, compressedBatch, rawRecords, sealBatch } from './helpers/compressed-batch.js';
import { batchesIn } from './helpers/log.js';
import { scrape } from './helpers/scrape.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceRequest } from './helpers/wire-produce.js';

/** Each request may decompress this much; the bombs below inflate past it. */
const MAX_REQUEST_BYTES = 32 << 20;

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker({ port: 0, maxRequestBytes: MAX_REQUEST_BYTES, metricsPort: 0 });
  client = await WireClient.connect(broker.port);
});

after(async () => {
  client.close();
  await broker.close();
});

/** About 600 KB of records: more than the broker decompresses on its event loop. */
const large: TestRecord[] = Array.from({ length: 3000 }, (_, i) => ({
  key: Buffer.from(`k${i}`),
  value: Buffer.from(`value ${i} `.repeat(20)),
}));

/** zeros that gzip to ~40 KB and inflate past the request's room. */
const bomb = sealBatch(1, gzipSync(Buffer.alloc(MAX_REQUEST_BYTES + (8 << 20))), 1);

/** `batch` with a producer's id, epoch and base sequence, its CRC sealed again. */
function idempotent(batch: Buffer, producerId: bigint, baseSequence: number): Buffer {
  const copy = Buffer.from(batch);
  copy.writeBigInt64BE(producerId, 43);
  copy.writeInt16BE(0, 51);
  copy.writeInt32BE(baseSequence, 53);
  copy.writeUInt32BE(crc32c(copy.subarray(21)), 17);
  return copy;
}

async function produceRequests(): Promise<number> {
  return (await scrape(broker.metricsPort!)).get('brook_produce_requests_total') ?? 0;
}

/** Resolves once the broker has taken `count` Produce requests in all: they have been handed to the handler. */
async function produceRequestsReach(count: number): Promise<void> {
  while ((await produceRequests()) < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** One Produce request with `batches[i]` for partition i, sent on `on`; each partition's error code and base offset. */
async function produceAll(on: WireClient, topic: string, batches: Buffer[]): Promise<[number, number][]> {
  const res = await on.request(ProduceRequest, ProduceResponse, 9, {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: batches.map((records, index) => ({ index, records })) }],
  });
  return res.responses[0]!.partitionResponses.map((p) => [p.errorCode, Number(p.baseOffset)]);
}

async function storedBatches(topic: string, partition: number): Promise<Buffer[]> {
  const res = await client.request(FetchRequest, FetchResponse, 12, fetchOf(topic, [partition], { maxBytes: 64 << 20 }));
  return batchesIn(res.responses[0]!.partitions[0]!.records ?? Buffer.alloc(0));
}

/** The answers to Produce requests sent back to back on one connection, in order. */
async function pipelined(on: WireClient, requests: readonly ProduceRequest[]): Promise<[number, number][]> {
  on.sendRaw(Buffer.concat(requests.map((r) => on.frame(ProduceRequest, 9, r))));
  const answers: [number, number][] = [];
  for (const _ of requests) {
    const frame = await on.nextFrame(30_000);
    assert.ok(frame !== undefined, 'the broker closed the connection');
    const p = on.decode(frame, ProduceResponse, 0, 9).body.responses[0]!.partitionResponses[0]!;
    answers.push([p.errorCode, Number(p.baseOffset)]);
  }
  return answers;
}

test('a large batch of every codec is stored and fetched back byte for byte, still compressed', async () => {
  await createTopic(client, 'large', codecs.length);
  const sent = codecs.map((codec) => compressedBatch(large, codec));
  assert.deepEqual(
    await produceAll(client, 'large', sent),
    codecs.map(() => [0, 0]),
  );
  for (const [partition, batch] of sent.entries()) {
    const [stored, ...more] = await storedBatches('large', partition);
    assert.equal(more.length, 0);
    // From the magic byte on, as sent; the base offset and leader epoch before it are the broker's.
    assert.ok(stored!.subarray(16).equals(batch.subarray(16)), codecs[partition]!.name);
  }
});

test('large bad compressed batches get the codes small ones get, and nothing is stored', async () => {
  const raw = rawRecords(large);
  for (const codec of codecs) {
    const payload = codec.compress(raw);
    const scrambled = Buffer.from(payload);
    // Past every codec's header: the stream itself no longer decodes, or decodes to other records.
    for (let at = Math.floor(payload.length / 3); at < payload.length - 16; at += 97) scrambled[at] = scrambled[at]! ^ 0x5a;
    const bad: [string, number, Buffer][] = [
      ['scrambled', ErrorCode.INVALID_RECORD, sealBatch(codec.id, scrambled, large.length)],
      ['truncated', ErrorCode.INVALID_RECORD, sealBatch(codec.id, payload.subarray(0, payload.length - 3), large.length)],
      ['claims a record more than it holds', ErrorCode.INVALID_RECORD, sealBatch(codec.id, payload, large.length + 1)],
      ['decompresses past the request limit', ErrorCode.MESSAGE_TOO_LARGE, compressedBatch([{ value: Buffer.alloc(MAX_REQUEST_BYTES + 1) }], codec)],
    ];
    const topic = `large-refused-${codec.name}`;
    await createTopic(client, topic, bad.length + 1);
    const answers = await produceAll(client, topic, [...bad.map(([, , batch]) => batch), compressedBatch(large, codec)]);
    assert.deepEqual(answers, [...bad.map(([, code]) => [code, -1]), [0, 0]], codec.name);
    for (const [partition, [what]] of bad.entries()) assert.deepEqual(await storedBatches(topic, partition), [], `${codec.name}: ${what}`);
  }
  assert.deepEqual(await produceAll(client, 'large-refused-gzip', [bomb]), [[ErrorCode.MESSAGE_TOO_LARGE, -1]]);
});

test('pipelined on one connection, batches behind a large compressed one are judged and stored after it', async () => {
  await createTopic(client, 'pipelined', 1);
  const pid = 41n;
  const small = (baseSequence: number, options: BatchOptions = {}): Buffer =>
    buildBatch([{ value: Buffer.from(`s${baseSequence}`) }, { value: Buffer.from(`t${baseSequence}`) }], {
      producerId: pid,
      producerEpoch: 0,
      baseSequence,
      ...options,
    });
  const n = large.length;
  const gzipped = idempotent(compressedBatch(large, codecs[0]!), pid, 0);
  const zstd = idempotent(
    compressedBatch(
      large,
      codecs.find((c) => c.name === 'zstd')!,
    ),
    pid,
    n + 2,
  );
  const sent = [
    gzipped,
    small(n),
    small(n), // a duplicate of the one before
    small(n + 5), // a gap
    zstd,
    buildBatch([{ value: Buffer.from('plain') }]),
    gzipped, // a duplicate of the first, still in the producer's window
  ];
  const answers = await pipelined(
    client,
    sent.map((batch) => produceRequest('pipelined', 0, batch)),
  );
  assert.deepEqual(answers, [
    [0, 0],
    [0, n],
    [0, n],
    [ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, -1],
    [0, n + 2],
    [0, 2 * n + 2],
    [0, 0],
  ]);
  const stored = await storedBatches('pipelined', 0);
  assert.deepEqual(
    stored.map((b) => Number(b.readBigInt64BE(0))),
    [0, n, n + 2, 2 * n + 2],
  );
  for (const [i, batch] of [gzipped, sent[1]!, zstd, sent[5]!].entries()) assert.ok(stored[i]!.subarray(16).equals(batch.subarray(16)), `stored batch ${i}`);
});

test("another connection's batch to the partition, arriving while a compressed one is decompressed, is stored after it", async () => {
  await createTopic(client, 'arrival', 2);
  const other = await WireClient.connect(broker.port);
  try {
    // A bomb first, which the request's next compressed batch waits for, then records inflating to 24 MB.
    const slow = compressedBatch(
      Array.from({ length: 6 }, () => ({ value: Buffer.alloc(4 << 20) })),
      codecs[0]!,
    );
    const before = await produceRequests();
    const first = produceAll(client, 'arrival', [bomb, slow]).then((answers) => answers[1]!);
    await produceRequestsReach(before + 1);
    const second = await other.request(ProduceRequest, ProduceResponse, 9, produceRequest('arrival', 1, buildBatch([{ value: Buffer.from('after') }])));
    assert.deepEqual(await first, [0, 0]);
    assert.equal(Number(second.responses[0]!.partitionResponses[0]!.baseOffset), 6);
    assert.deepEqual(
      (await storedBatches('arrival', 1)).map((b) => Number(b.readBigInt64BE(0))),
      [0, 6],
    );
  } finally {
    other.close();
  }
});

test("another connection's ApiVersions is answered while compression bombs are decompressed", async () => {
  const partitions = 6;
  await createTopic(client, 'bombed', partitions);
  const other = await WireClient.connect(broker.port);
  try {
    const seen: string[] = [];
    const before = await produceRequests();
    const bombed = produceAll(
      client,
      'bombed',
      Array.from({ length: partitions }, () => bomb),
    ).then((answers) => {
      seen.push('Produce');
      return answers;
    });
    await produceRequestsReach(before + 1);
    const versions = await other.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' });
    seen.push('ApiVersions');
    assert.equal(versions.errorCode, ErrorCode.NONE);
    assert.deepEqual(
      await bombed,
      Array.from({ length: partitions }, () => [ErrorCode.MESSAGE_TOO_LARGE, -1]),
    );
    assert.deepEqual(seen, ['ApiVersions', 'Produce']);
  } finally {
    other.close();
  }
});

test('a record walk that fails on a large decompressed batch is refused with its record errors', async () => {
  await createTopic(client, 'large-keyless', 1, { 'cleanup.policy': 'compact' });
  const records = large.map((r, i) => (i === 7 ? { value: r.value } : r));
  const batch = compressedBatch(records, codecs[0]!);
  const res = await client.request(ProduceRequest, ProduceResponse, 9, produceRequest('large-keyless', 0, batch));
  const p = res.responses[0]!.partitionResponses[0]!;
  assert.equal(p.errorCode, ErrorCode.INVALID_RECORD);
  assert.deepEqual(
    p.recordErrors.map((e) => e.batchIndex),
    [7],
  );
});

test("batches refused after decompressing use up their request's room, on the event loop and off it", async (t) => {
  for (const [recordCount, maxRequestBytes] of [
    [100, 60_000], // ~21 KB each, checked on the event loop
    [1500, 1_000_000], // ~315 KB each, checked off it
  ] as const) {
    const limited = await startBroker({ port: 0, maxRequestBytes });
    t.after(() => limited.close());
    const c = await WireClient.connect(limited.port);
    t.after(() => c.close());
    const topic = `room-${recordCount}`;
    await createTopic(c, topic, 4);
    const records = Array.from({ length: recordCount }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`.padEnd(200, 'x')) }));
    const raw = rawRecords(records);
    // Its header claims one record more than it holds: refused once its records are walked.
    const refused = sealBatch(1, gzipSync(raw), records.length + 1);
    const fine = sealBatch(1, gzipSync(raw), records.length);
    const answer = await c.request(ProduceRequest, ProduceResponse, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [refused, refused, refused, fine].map((records, index) => ({ index, records })) }],
    });
    // Each batch decompresses to raw.length bytes, taken from the room whether it is then refused or not.
    const expected = [0, 1, 2, 3].map((k) =>
      (k + 1) * raw.length > maxRequestBytes ? ErrorCode.MESSAGE_TOO_LARGE : k < 3 ? ErrorCode.INVALID_RECORD : ErrorCode.NONE,
    );
    assert.ok(expected.includes(ErrorCode.MESSAGE_TOO_LARGE), 'the room runs out within the request');
    assert.deepEqual(
      answer.responses[0]!.partitionResponses.map((p) => p.errorCode),
      expected,
      `${recordCount} records of ${raw.length} bytes each`,
    );
  }
});

test('lz4 and zstd bombs sent on many connections at once are each refused as one alone is, and a good batch among them is stored', async () => {
  const connections = 12;
  await createTopic(client, 'many-bombs', 1);
  await createTopic(client, 'among-bombs', 1);
  for (const codec of codecs.filter((c) => c.name === 'lz4' || c.name === 'zstd')) {
    // Zeros within the request's room: decompressed in full, then the record walk fails.
    const zeros = sealBatch(codec.id, codec.compress(Buffer.alloc(MAX_REQUEST_BYTES - (1 << 20))), 1);
    const [alone] = await produceAll(client, 'many-bombs', [zeros]);
    assert.notEqual(alone![0], ErrorCode.NONE, codec.name);
    const bombers = await Promise.all(Array.from({ length: connections }, () => WireClient.connect(broker.port)));
    try {
      const good = compressedBatch(large, codec);
      const [answers, [goodAnswer]] = await Promise.all([
        Promise.all(bombers.map((on) => produceAll(on, 'many-bombs', [zeros]))),
        produceAll(client, 'among-bombs', [good]),
      ]);
      assert.deepEqual(
        answers,
        Array.from({ length: connections }, () => [alone]),
        codec.name,
      );
      assert.equal(goodAnswer![0], ErrorCode.NONE, codec.name);
      const stored = (await storedBatches('among-bombs', 0)).at(-1)!;
      assert.ok(stored.subarray(16).equals(good.subarray(16)), codec.name);
      assert.deepEqual(await storedBatches('many-bombs', 0), [], 'no bomb is stored');
    } finally {
      for (const on of bombers) on.close();
    }
  }
});
