import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import { buildBatch } from './helpers/batch.js';
import { codecs, sealBatch } from './helpers/compressed-batch.js';
import { scrape } from './helpers/scrape.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';
import { createTopic, produceBatch, produceRequest } from './helpers/wire-produce.js';

const brokers: Broker[] = [];
after(async () => {
  await Promise.all(brokers.map((b) => b.close()));
});

test('connections pipelining requests larger than the room the budget leaves are all answered, and the memory granted never passes the budget', async () => {
  // 2,000,000 bytes, of which decompression keeps 1,250,000: requests share 750,000, two of these at a time.
  const budget = 2_000_000;
  const b = await startBroker({ port: 0, queuedMaxRequestBytes: budget, maxRequestBytes: 500_000, metricsPort: 0 });
  brokers.push(b);
  const admin = await WireClient.connect(b.port);
  await createTopic(admin, 'pipelined', 4);
  admin.close();
  const CONNECTIONS = 8;
  const PIPELINED = 6;
  const clients = await Promise.all(Array.from({ length: CONNECTIONS }, () => WireClient.connect(b.port)));
  const answers = await Promise.all(
    clients.map(async (c, n) => {
      const frames = Array.from({ length: PIPELINED }, (_, i) =>
        c.frame(ProduceRequest, 9, produceRequest('pipelined', n % 4, buildBatch([{ value: Buffer.alloc(300_000, n * PIPELINED + i) }]))),
      );
      assert.ok(frames[0]!.length > 300_000);
      c.sendRaw(Buffer.concat(frames));
      const answered = [];
      for (let i = 0; i < PIPELINED; i++) {
        const frame = await c.nextFrame(60_000);
        assert.ok(frame !== undefined, 'the broker keeps the connection open');
        answered.push(c.decode(frame, ProduceResponse, 0, 9).body.responses[0]!.partitionResponses[0]!);
      }
      c.close();
      return answered;
    }),
  );
  const all = answers.flat();
  assert.equal(all.length, CONNECTIONS * PIPELINED);
  assert.ok(
    all.every((p) => p.errorCode === 0),
    'nothing refused',
  );
  const metrics = await scrape(b.metricsPort!);
  const peak = metrics.get('brook_request_memory_peak_bytes')!;
  assert.ok(peak > 300_000, `the pool held the requests (peak ${peak})`);
  assert.ok(peak <= budget, `the pool's peak ${peak} is within the budget of ${budget}`);
  assert.equal(metrics.get('brook_request_memory_bytes'), 0, 'all given back once answered');
});

test('records decompressed on the checks thread are charged to the pool, codecs working memory included, and bombs on many connections each wait their turn', async () => {
  const MiB = 1 << 20;
  // Requests up to 8 MiB; the 20 MiB left over is decompression's share: one bomb at a time.
  const budget = 28 * MiB;
  const b = await startBroker({ port: 0, queuedMaxRequestBytes: budget, maxRequestBytes: 8 * MiB, metricsPort: 0 });
  brokers.push(b);
  const admin = await WireClient.connect(b.port);
  await createTopic(admin, 'bombed', 1);
  const inflated = 6 * MiB;
  for (const codec of codecs.filter((c) => c.name === 'lz4' || c.name === 'zstd')) {
    // Zeros within the request's room: decompressed in full, then the record walk fails.
    const bomb = sealBatch(codec.id, codec.compress(Buffer.alloc(inflated)), 1);
    const produce = async (on: WireClient): Promise<number> =>
      (await on.request(ProduceRequest, ProduceResponse, 9, produceRequest('bombed', 0, bomb))).responses[0]!.partitionResponses[0]!.errorCode;
    const alone = await produce(admin);
    assert.notEqual(alone, 0);
    const bombers = await Promise.all(Array.from({ length: 6 }, () => WireClient.connect(b.port)));
    assert.deepEqual(await Promise.all(bombers.map(produce)), Array(6).fill(alone), `${codec.name}: each refused as the one alone`);
    for (const on of bombers) on.close();
  }
  admin.close();
  const metrics = await scrape(b.metricsPort!);
  const peak = metrics.get('brook_request_memory_peak_bytes')!;
  assert.ok(peak >= inflated * 2, `a bomb's records and the codec's working memory were charged (peak ${peak})`);
  assert.ok(peak <= budget, `the pool's peak ${peak} is within the budget of ${budget}`);
  assert.equal(metrics.get('brook_request_memory_bytes'), 0, 'all given back once answered');
});

test('fetch answers are charged to the pool: consumers that each want more than the budget has free all read everything, and the memory granted never passes the budget', async () => {
  // 4,000,000 bytes, of which decompression keeps 2,750,000: requests and answers share 1,250,000.
  const budget = 4_000_000;
  const b = await startBroker({ port: 0, queuedMaxRequestBytes: budget, maxRequestBytes: 1_100_000, metricsPort: 0 });
  brokers.push(b);
  const admin = await WireClient.connect(b.port);
  await createTopic(admin, 'read', 1);
  const BATCHES = 10;
  for (let i = 0; i < BATCHES; i++) {
    assert.equal((await produceBatch(admin, 'read', 0, buildBatch([{ value: Buffer.alloc(300_000, i) }]))).errorCode, 0);
  }
  admin.close();
  const produced = (await scrape(b.metricsPort!)).get('brook_request_memory_peak_bytes')!;
  // Each consumer asks for all ten batches at once: 3 MB, more than twice what the budget leaves them all.
  const CONSUMERS = 6;
  const consumers = await Promise.all(Array.from({ length: CONSUMERS }, () => WireClient.connect(b.port)));
  const read = await Promise.all(
    consumers.map(async (c) => {
      const values: number[] = [];
      for (let offset = 0; offset < BATCHES;) {
        const limits = { offset, maxWaitMs: 200, minBytes: 1, maxBytes: 4_000_000 };
        const answer = (await c.request(FetchRequest, FetchResponse, 12, fetchOf('read', [0], limits))).responses[0]!.partitions[0]!;
        assert.equal(answer.errorCode, 0);
        const records = answer.records ?? Buffer.alloc(0);
        for (let pos = 0; pos < records.length;) {
          const header = readBatchHeader(records, pos);
          // The value fills the record but its last byte, the count of its headers.
          values.push(records[pos + header.size - 2]!);
          offset = header.baseOffset + header.lastOffsetDelta + 1;
          pos += header.size;
        }
      }
      c.close();
      return values;
    }),
  );
  const all = Array.from({ length: BATCHES }, (_, i) => i);
  assert.deepEqual(read, Array(CONSUMERS).fill(all), 'every consumer read every batch, in order');
  const metrics = await scrape(b.metricsPort!);
  const peak = metrics.get('brook_request_memory_peak_bytes')!;
  assert.ok(peak >= produced + 900_000, `answers of several batches were charged (peak ${peak}, ${produced} while producing)`);
  assert.ok(peak <= budget, `the pool's peak ${peak} is within the budget of ${budget}`);
  assert.equal(metrics.get('brook_request_memory_bytes'), 0, 'all given back once answered');
});
