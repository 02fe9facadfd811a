/** The web console's HTTP side without a browser: `brook serve --console-port`, the page's headers, its event stream and its bounds. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startBroker } from '../src/index.js';
import { kafkajs } from './helpers/kafkajs.js';
import { startServe } from './helpers/serve-process.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchAllBatches } from './helpers/wire-fetch.js';
import { readBatchHeader } from '../src/protocol/record-batch.js';
import type { ConfigResourceTypes } from 'kafkajs';

test('serve --console-port serves the page with a policy allowing only its own scripts, and says where in its JSON log', async () => {
  const serve = await startServe(['--console-port', '0', '--console-host', '127.0.0.1', '--log-level', 'info']);
  try {
    // The JSON log is written apart from the plain line serve waits for: it may come after it.
    const announcement = (): { msg: string; consolePort?: number } | undefined =>
      serve
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; consolePort?: number })
        .find((l) => l.msg.startsWith('listening on'));
    await until(() => announcement() !== undefined, 'the JSON log says where the console is');
    const announced = announcement();
    const consolePort = announced?.consolePort;
    assert.ok(typeof consolePort === 'number', serve.output());
    assert.equal(announced!.msg, `listening on 127.0.0.1:${serve.port}, console on http://127.0.0.1:${consolePort}/, data in ${serve.dataDir}`);
    const page = await fetch(`http://127.0.0.1:${consolePort}/topics/anything`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script type="module" src="\/assets\/app.js">/);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    const preact = await fetch(`http://127.0.0.1:${consolePort}/vendor/preact.mjs`);
    assert.equal(preact.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal((await fetch(`http://127.0.0.1:${consolePort}/assets/nothing.js`)).status, 404);
    // A page of another site whose name was pointed at 127.0.0.1 is not answered.
    for (const [host, status] of [
      [`rebound.example:${consolePort}`, 421],
      [`localhost:${consolePort}`, 200],
      [`[::1]:${consolePort}`, 200],
    ] as const) {
      const answered = await new Promise<number | undefined>((resolve, reject) => {
        request(`http://127.0.0.1:${consolePort}/api/overview`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        })
          .on('error', reject)
          .end();
      });
      assert.equal(answered, status, host);
    }
  } finally {
    await serve.stop();
  }
});

test('the event stream names the partitions whose producers changed; streams and bodies are bounded; a restart keeps the console', async () => {
  const broker = await startBroker({ consolePort: 0 });
  const base = `http://127.0.0.1:${broker.consolePort}`;
  const streams: AbortController[] = [];
  try {
    const first = new AbortController();
    streams.push(first);
    const events = await fetch(`${base}/api/events`, { signal: first.signal });
    assert.equal(events.headers.get('content-type'), 'text/event-stream');
    const producer = kafkajs(broker.bootstrap).producer({ idempotent: true, allowAutoTopicCreation: true });
    await producer.connect();
    await producer.send({ topic: 'watched', messages: [{ value: 'v' }] });
    await producer.disconnect();
    const reader = events.body!.getReader();
    let text = '';
    while (!text.includes('event: producers')) text += Buffer.from((await reader.read()).value!).toString();
    const data = /event: producers\ndata: (.*)\n/.exec(text)?.[1];
    assert.deepEqual(JSON.parse(data!), { partitions: [{ topic: 'watched', partition: 0 }] });

    // Held until the end: undici cancels the body of a Response that is garbage-collected, which
    // would end its stream and free its slot.
    const held: Response[] = [events];
    for (let i = 1; i < 100; i++) {
      const controller = new AbortController();
      streams.push(controller);
      held.push(await fetch(`${base}/api/events`, { signal: controller.signal }));
      assert.equal(held.at(-1)!.status, 200);
    }
    const refused = await fetch(`${base}/api/events`);
    assert.equal(refused.status, 503);
    assert.equal(held.length, 100);
    for (const s of streams.splice(0)) s.abort();

    const tooLarge = await fetch(`${base}/api/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lines: 'x'.repeat(5 * 1024 * 1024) }),
    });
    assert.equal(tooLarge.status, 413);
    // Sent in chunks, without a length: read to its end, kept only up to the bound.
    const chunked = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${base}/api/replay`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject);
      for (let i = 0; i < 80; i++) req.write(Buffer.alloc(64 * 1024, 0x20));
      req.end();
    });
    assert.equal(chunked, 413);

    await broker.restart();
    const topics = (await (await fetch(`${base}/api/topics`)).json()) as { items: { name: string }[] };
    assert.deepEqual(
      topics.items.map((t) => t.name),
      ['watched'],
    );
  } finally {
    for (const s of streams) s.abort();
    await broker.close();
  }
});

test("a topic's partitions show the last stable offset, held back by an open transaction until it commits", async () => {
  const broker = await startBroker({ consolePort: 0 });
  const producer = kafkajs(broker.bootstrap).producer({ transactionalId: 'console-txn', idempotent: true, maxInFlightRequests: 1 });
  try {
    const admin = kafkajs(broker.bootstrap).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'staged', numPartitions: 1 }] });
    await admin.disconnect();
    await producer.connect();
    const plain = kafkajs(broker.bootstrap).producer();
    await plain.connect();
    await plain.send({ topic: 'staged', messages: [{ value: 'before' }] });
    await plain.disconnect();
    const partition = async () => {
      const answer = (await (await fetch(`http://127.0.0.1:${broker.consolePort}/api/topics/staged`)).json()) as {
        partitions: { items: { highWatermark: number; lastStableOffset: number }[] };
      };
      return answer.partitions.items[0]!;
    };
    const txn = await producer.transaction();
    await txn.send({ topic: 'staged', messages: [{ value: 'a' }, { value: 'b' }] });
    assert.deepEqual(await partition(), { ...(await partition()), highWatermark: 3, lastStableOffset: 1 });
    await txn.commit();
    // The commit marker takes an offset too.
    assert.deepEqual(await partition(), { ...(await partition()), highWatermark: 4, lastStableOffset: 4 });
  } finally {
    await producer.disconnect();
    await broker.close();
  }
});

test("the topics list counts a partition's records again once compaction has removed some", async () => {
  const broker = await startBroker({ consolePort: 0, cleanerBackoffMs: 20 });
  const admin = kafkajs(broker.bootstrap).admin();
  const client = await WireClient.connect(broker.port);
  try {
    await admin.connect();
    const configEntries = [
      { name: 'segment.bytes', value: '2048' },
      { name: 'min.cleanable.dirty.ratio', value: '0.01' },
    ];
    await admin.createTopics({ topics: [{ topic: 'table', configEntries }] });
    const producer = kafkajs(broker.bootstrap).producer();
    await producer.connect();
    for (let round = 0; round < 20; round++)
      await producer.send({ topic: 'table', messages: Array.from({ length: 10 }, (_, k) => ({ key: `key-${k}`, value: `value-${round}` })) });
    await producer.disconnect();
    const counted = async (): Promise<number> => {
      const answer = (await (await fetch(`http://127.0.0.1:${broker.consolePort}/api/topics`)).json()) as {
        items: { name: string; messages: number; exact: boolean }[];
      };
      const table = answer.items.find((t) => t.name === 'table')!;
      assert.ok(table.exact);
      return table.messages;
    };
    assert.equal(await counted(), 200, 'counted while nothing is compacted');
    // Compacted from now on: the cleaner keeps the latest record of each key, and a few more.
    const TOPIC_RESOURCE = 2 as ConfigResourceTypes;
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: TOPIC_RESOURCE, name: 'table', configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }],
    });
    const stored = async (): Promise<number> =>
      (await fetchAllBatches(client, 'table', 0)).map((b) => readBatchHeader(b)).reduce((sum, h) => sum + h.recordCount, 0);
    await until(async () => {
      const now = await stored();
      return now < 200 && (await counted()) === now;
    }, 'the count follows the cleaner');
  } finally {
    client.close();
    await admin.disconnect();
    await broker.close();
  }
});
