import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { describe, readTopic, tally, type Placed, type Tally } from '../helpers/exactly-once.js';
import { FaultProxy, type FaultRules } from '../helpers/fault-proxy.js';
import { LineProcess } from '../helpers/line-process.js';
import { Producer as PlatformaticProducer } from '../helpers/platformatic.js';
import { API, producedBatches } from '../helpers/produce-frames.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';

const PARTITIONS = 4;
const SERVE_ARGS = ['--partitions', String(PARTITIONS)];

interface Rig {
  readonly proxy: FaultProxy;
  serve: ServeProcess;
}

/** A broker that tells clients to come through a fault proxy; both gone when the test ends. */
async function rig(t: TestContext): Promise<Rig> {
  const proxy = await FaultProxy.start();
  const rig: Rig = { proxy, serve: await startServe([...SERVE_ARGS, ...proxy.advertisedListener]) };
  proxy.target = rig.serve.port;
  t.after(async () => {
    await proxy.close();
    await rig.serve.stop('SIGKILL');
    await rm(rig.serve.dataDir, { recursive: true, force: true });
  });
  return rig;
}

/** mulberry32: the same faults on every run. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

interface Injected {
  lostAcks: number;
  cutRequests: number;
  delayed: number;
}

/**
 * On Produce only: loses `lostAcks` of the acknowledgements (the batch is written, the client
 * never hears so and its connection drops), cuts 1% of requests halfway, delays 5% of responses.
 */
function produceFaults(lostAcks: number, seed: number): FaultRules & { injected: Injected } {
  const random = seeded(seed);
  const injected: Injected = { lostAcks: 0, cutRequests: 0, delayed: 0 };
  return {
    injected,
    onRequest: (request) => {
      if (request.apiKey !== API.PRODUCE || random() >= 0.01) return 'forward';
      injected.cutRequests++;
      return 'cut';
    },
    onResponse: (request) => {
      if (request.apiKey !== API.PRODUCE) return 'forward';
      const r = random();
      if (r < lostAcks) {
        injected.lostAcks++;
        return 'drop-and-cut';
      }
      if (r >= lostAcks + 0.05) return 'forward';
      injected.delayed++;
      return { delayMs: 1 + Math.floor(random() * 50) };
    },
  };
}

function report(t: TestContext, what: string, sent: number, injected: Injected | string, counts: Tally): void {
  const faults = typeof injected === 'string' ? injected : `${injected.lostAcks} lost acks, ${injected.cutRequests} requests cut halfway, ${injected.delayed} responses delayed`;
  const line = `${what}: sent ${sent}; faults: ${faults}; ${describe(counts)}`;
  t.diagnostic(line);
}

function assertExactlyOnce(counts: Tally, sent: number): void {
  assert.equal(counts.duplicates, 0, 'duplicates');
  assert.equal(counts.losses, 0, 'losses');
  assert.equal(counts.misplaced, 0, 'acknowledged at another offset than stored');
  assert.equal(counts.acked, sent, 'every message acknowledged');
}

interface PacedLine {
  readonly acked: number | Placed[];
  readonly errors?: string[];
}

const ackedSoFar = (lines: readonly PacedLine[]) => lines.reduce((n, l) => (typeof l.acked === 'number' ? l.acked : n), 0);

async function finishPaced(producer: LineProcess<PacedLine>): Promise<Placed[]> {
  const last = await producer.finish();
  assert.deepEqual(last.errors, []);
  return last.acked as Placed[];
}

test('librdkafka: 5% of produce acknowledgements lost, over 4 partitions; everything lands exactly once', { timeout: 180_000 }, async (t) => {
  const { proxy, serve } = await rig(t);
  const count = 10_000;
  const faults = produceFaults(0.05, 1);
  proxy.rules = faults;
  const acked = await finishPaced(LineProcess.python<PacedLine>('confluent_produce_paced.py', [proxy.bootstrap, 'lost-acks-librdkafka', PARTITIONS, count]));
  proxy.rules = {};
  const counts = tally(acked, await readTopic(serve.bootstrap, 'lost-acks-librdkafka'));
  report(t, 'librdkafka, lost acks', count, faults.injected, counts);
  assert.ok(faults.injected.lostAcks >= 20, 'enough acknowledgements were lost to mean something');
  assertExactlyOnce(counts, count);
});

/** Sends `values` round-robin over the partitions; resolves with each partition's base offset. */
type Send = (topic: string, values: string[]) => Promise<(readonly [partition: number, baseOffset: number])[]>;

/** 4000 messages, 8 to a send, 2 to a partition; returns where each was acknowledged. */
async function sendAll(send: Send, topic: string, senders: number): Promise<Placed[]> {
  const acked: Placed[] = [];
  const sends = 500;
  await Promise.all(
    Array.from({ length: senders }, async (_, sender) => {
      for (let s = sender; s < sends; s += senders) {
        const values = Array.from({ length: 8 }, (_, i) => `m${s * 8 + i}`);
        for (const [partition, base] of await send(topic, values)) {
          values.filter((_, i) => i % PARTITIONS === partition).forEach((v, i) => acked.push([partition, base + i, v]));
        }
      }
    }),
  );
  return acked;
}

const kafkajsSend =
  (producer: Producer): Send =>
  async (topic, values) =>
    (await producer.send({ topic, acks: -1, messages: values.map((value, i) => ({ partition: i % PARTITIONS, value })) })).map((m) => [m.partition, Number(m.baseOffset)] as const);

async function kafkajsProducer(t: TestContext, serve: ServeProcess, clientId: string): Promise<Producer> {
  // Bootstrap straight to the broker: kafkajs then reaches the partition leader through the proxy.
  const kafka = new Kafka({ clientId, brokers: [serve.bootstrap], logLevel: logLevel.NOTHING });
  // kafkajs takes any maxInFlightRequests, but its idempotent producer holds a lock per broker around each Produce.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5, retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 20, maxRetryTime: 500 } });
  await producer.connect();
  t.after(() => producer.disconnect());
  return producer;
}

test('kafkajs: 5% of produce acknowledgements lost, sends one at a time; everything lands exactly once', { timeout: 180_000 }, async (t) => {
  const { proxy, serve } = await rig(t);
  const producer = await kafkajsProducer(t, serve, 'lost-acks-kafkajs');
  const faults = produceFaults(0.05, 2);
  proxy.rules = faults;
  const acked = await sendAll(kafkajsSend(producer), 'lost-acks-kafkajs', 1);
  proxy.rules = {};
  const counts = tally(acked, await readTopic(serve.bootstrap, 'lost-acks-kafkajs'));
  report(t, 'kafkajs, lost acks', 4000, faults.injected, counts);
  assert.ok(faults.injected.lostAcks >= 10, 'enough acknowledgements were lost to mean something');
  assertExactlyOnce(counts, 4000);
});

test('kafkajs flaw: four sends at once on one idempotent producer reuse a sequence number after a lost ack, so messages are lost and duplicated', { timeout: 180_000 }, async (t) => {
  const { proxy, serve } = await rig(t);
  const producer = await kafkajsProducer(t, serve, 'kafkajs-concurrent');
  const faults = produceFaults(0.05, 2);
  const contents = new Map<string, Set<string>>();
  proxy.rules = {
    ...faults,
    onRequest: (request) => {
      for (const b of request.apiKey === API.PRODUCE ? producedBatches(request) : []) {
        const key = `${b.partition}/${b.producerId}/${b.epoch}/${b.baseSequence}`;
        contents.set(key, (contents.get(key) ?? new Set()).add(b.records.toString('hex')));
      }
      return faults.onRequest!(request);
    },
  };
  const acked = await sendAll(kafkajsSend(producer), 'kafkajs-concurrent', 4);
  proxy.rules = {};
  const reused = [...contents.values()].filter((c) => c.size > 1).length;
  const counts = tally(acked, await readTopic(serve.bootstrap, 'kafkajs-concurrent'));
  report(t, `kafkajs, four sends at once, lost acks (${reused} sequence numbers carried two different batches)`, 4000, faults.injected, counts);
  // brook answers a reused sequence as the retry it claims to be, with the first batch's offset: the second batch is lost.
  assert.ok(reused > 0, 'kafkajs no longer reuses sequence numbers: update the README');
  assert.ok(counts.losses > 0);
});

test('@platformatic/kafka: 5% of produce acknowledgements lost, four sends at a time; everything lands exactly once', { timeout: 180_000 }, async (t) => {
  const { proxy, serve } = await rig(t);
  const producer = new PlatformaticProducer({ clientId: 'lost-acks-platformatic', bootstrapBrokers: [serve.bootstrap], idempotent: true, autocreateTopics: true, retries: 1000, retryDelay: 20 });
  t.after(() => producer.close());
  const faults = produceFaults(0.05, 3);
  proxy.rules = faults;
  const acked = await sendAll(
    async (topic, values) => {
      const result = await producer.send({ messages: values.map((value, i) => ({ topic, partition: i % PARTITIONS, value: Buffer.from(value) })) });
      return result.offsets!.map((o) => [o.partition, Number(o.offset)] as const);
    },
    'lost-acks-platformatic',
    4,
  );
  proxy.rules = {};
  const counts = tally(acked, await readTopic(serve.bootstrap, 'lost-acks-platformatic'));
  report(t, '@platformatic/kafka, lost acks', 4000, faults.injected, counts);
  assert.ok(faults.injected.lostAcks >= 10, 'enough acknowledgements were lost to mean something');
  assertExactlyOnce(counts, 4000);
});

test('librdkafka: the broker is SIGKILLed and restarted 3 times under load; nothing acknowledged is lost or duplicated', { timeout: 240_000 }, async (t) => {
  const r = await rig(t);
  // Produce requests the broker never answered: those in flight when it was killed.
  let unanswered = 0;
  r.proxy.rules = {
    onRequest: (request) => {
      if (request.apiKey === API.PRODUCE) unanswered++;
      return 'forward';
    },
    onResponse: (request) => {
      if (request.apiKey === API.PRODUCE) unanswered--;
      return 'forward';
    },
  };
  const count = 20_000;
  const producer = LineProcess.python<PacedLine>('confluent_produce_paced.py', [r.proxy.bootstrap, 'killed-broker', PARTITIONS, count], 200_000);
  t.after(() => producer.kill());
  const inFlight: number[] = [];
  for (let kill = 1; kill <= 3; kill++) {
    await producer.until((lines) => ackedSoFar(lines) >= (kill * count) / 4, `${(kill * count) / 4} are acknowledged`, 120_000);
    await r.serve.stop('SIGKILL');
    inFlight.push(unanswered - inFlight.reduce((a, b) => a + b, 0));
    r.serve = await startServe([...SERVE_ARGS, ...r.proxy.advertisedListener], r.serve.dataDir);
    r.proxy.target = r.serve.port;
  }
  const counts = tally(await finishPaced(producer), await readTopic(r.serve.bootstrap, 'killed-broker'));
  report(t, 'librdkafka, broker SIGKILLed', count, `3 SIGKILLs and restarts on the same data dir, with ${inFlight.join(', ')} Produce requests in flight`, counts);
  assertExactlyOnce(counts, count);
});
