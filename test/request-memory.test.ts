import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ProduceRequest, ProduceResponse } from '../src/protocol/messages/produce.js';
import { buildBatch } from './helpers/batch.js';
import { codecs, sealBatch } from './helpers/compressed-batch.js';
import { scrape } from './helpers/scrape.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceRequest } from './helpers/wire-produce.js';

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
