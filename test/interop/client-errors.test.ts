/**
 * What each client does when brook refuses a produce: the fault proxy answers a client's first
 * Produce to a topic with one error code (the broker never sees that request, as it appends
 * nothing when it refuses), and the test records whether the client tried again, under which
 * producer id and epoch, what the application was finally told, and whether the same producer's
 * next send (to partition 1) goes through.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { Kafka, logLevel } from 'kafkajs';
import { runPython } from '../helpers/external.js';
import { readTopic } from '../helpers/exactly-once.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { kafkajs } from '../helpers/kafkajs.js';
import { Producer as PlatformaticProducer } from '../helpers/platformatic.js';
import { API, produceErrorResponse, producedBatches, type ProducedBatch } from '../helpers/produce-frames.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';

/** The errors brook's produce path can return. */
const CODES = [45, 47, 2, 87, 3, 56, 21] as const;
const CLIENTS = ['kafkajs', 'platformatic', 'librdkafka', 'kafka-python'] as const;
type Code = (typeof CODES)[number];
type Client = (typeof CLIENTS)[number];

/** What was observed, and what the README's table says. */
const EXPECTED: Record<Client, Record<Code, string>> = {
  kafkajs: {
    45: 'no retry; fails: KafkaJSProtocolError OUT_OF_ORDER_SEQUENCE_NUMBER; stored 0; next send delivered',
    47: 'no retry; fails: KafkaJSProtocolError INVALID_PRODUCER_EPOCH; stored 0; next send delivered',
    2: '1 retry; delivered; stored 1; next send delivered',
    87: 'no retry; fails: KafkaJSProtocolError INVALID_RECORD; stored 0; next send delivered',
    3: '1 retry; delivered; stored 1; next send delivered',
    56: '1 retry; delivered; stored 1; next send delivered',
    21: 'no retry; fails: KafkaJSProtocolError INVALID_REQUIRED_ACKS; stored 0; next send delivered',
  },
  platformatic: {
    45: '1 retry under a new producer id; delivered; stored 1; next send delivered under a new producer id',
    47: 'no retry; fails: ProtocolError INVALID_PRODUCER_EPOCH; stored 0; next send delivered under a new producer id',
    2: '1 retry; delivered; stored 1; next send delivered',
    87: 'no retry; fails: ProtocolError INVALID_RECORD; stored 0; next send delivered under a new producer id',
    3: '1 retry; delivered; stored 1; next send delivered',
    56: '1 retry; delivered; stored 1; next send delivered',
    21: 'no retry; fails: ProtocolError INVALID_REQUIRED_ACKS; stored 0; next send delivered under a new producer id',
  },
  librdkafka: {
    45: 'no retry; fails: OUT_OF_ORDER_SEQUENCE_NUMBER, a fatal error; stored 0; next send fails: _FATAL',
    47: 'no retry; fails: INVALID_PRODUCER_EPOCH; stored 0; next send delivered with the epoch bumped',
    2: 'no retry; fails: INVALID_MSG; stored 0; next send delivered with the epoch bumped',
    87: 'no retry; fails: INVALID_RECORD; stored 0; next send delivered with the epoch bumped',
    3: '1 retry; delivered; stored 1; next send delivered',
    56: '1 retry; delivered; stored 1; next send delivered',
    21: 'no retry; fails: INVALID_REQUIRED_ACKS; stored 0; next send delivered with the epoch bumped',
  },
  'kafka-python': {
    45: 'no retry; fails: UnknownError; stored 0; next send delivered',
    47: 'no retry; fails: UnknownError; stored 0; next send delivered',
    2: 'no retry; fails: CorruptRecordException; stored 0; next send delivered',
    87: 'no retry; fails: UnknownError; stored 0; next send delivered',
    3: '1 retry; delivered; stored 1; next send delivered',
    56: 'no retry; fails: UnknownError; stored 0; next send delivered',
    21: 'no retry; fails: InvalidRequiredAcksError; stored 0; next send delivered',
  },
};

/** What the application was told: the offset, or the error as the client names it. */
type Told = { offset: number } | { error: string };
interface Outcome {
  readonly first: Told;
  readonly next: Told;
}

let proxy: FaultProxy;
let serve: ServeProcess;
const batchesByTopic = new Map<string, ProducedBatch[]>();

before(async () => {
  proxy = await FaultProxy.start();
  serve = await startServe(proxy.advertisedListener);
  proxy.target = serve.port;
  const admin = kafkajs(serve.bootstrap).admin();
  await admin.connect();
  await admin.createTopics({ topics: CLIENTS.flatMap((c) => CODES.map((code) => ({ topic: `${c}-e${code}`, numPartitions: 2 }))) });
  await admin.disconnect();
  const refused = new Set<string>();
  proxy.rules = {
    onRequest: (request) => {
      if (request.apiKey !== API.PRODUCE) return 'forward';
      const batches = producedBatches(request);
      const topic = batches[0]!.topic;
      batchesByTopic.set(topic, [...(batchesByTopic.get(topic) ?? []), ...batches]);
      if (refused.has(topic) || batches[0]!.partition !== 0) return 'forward';
      refused.add(topic);
      return { answer: produceErrorResponse(request, Number(/-e(\d+)$/.exec(topic)![1])) };
    },
  };
});
after(async () => {
  await proxy.close();
  await serve.stop();
  await rm(serve.dataDir, { recursive: true, force: true });
});

const told = (t: Told) => ('offset' in t ? 'delivered' : `fails: ${t.error}`);

/** How `later` was sent, next to the refused first attempt. */
function identity(first: ProducedBatch, later: ProducedBatch | undefined): string {
  if (later === undefined || later.producerId === first.producerId) return later && later.epoch !== first.epoch ? ' with the epoch bumped' : '';
  return ' under a new producer id';
}

/** One row of the README table: what happened to the refused message, and to the next one. */
async function observe(client: Client, code: Code, outcome: Outcome): Promise<string> {
  const topic = `${client}-e${code}`;
  const batches = batchesByTopic.get(topic) ?? [];
  const attempts = batches.filter((b) => b.partition === 0);
  const next = batches.find((b) => b.partition === 1);
  const stored = (await readTopic(serve.bootstrap, topic)).filter(([p]) => p === 0).length;
  const retries = `${attempts.length - 1 === 0 ? 'no retry' : `${attempts.length - 1} retry`}${identity(attempts[0]!, attempts.at(-1))}`;
  return `${retries}; ${told(outcome.first)}; stored ${stored}; next send ${told(outcome.next)}${identity(attempts[0]!, next)}`;
}

/** The protocol error inside @platformatic/kafka's nested errors. */
function platformaticError(err: unknown): string {
  const e = err as { apiId?: string; errors?: unknown[]; message: string };
  if (e.apiId !== undefined) return `ProtocolError ${e.apiId}`;
  return e.errors?.length ? platformaticError(e.errors[0]) : e.message;
}

/** Per client: for each code, a fresh producer sends to partition 0 (refused first), then to partition 1. */
const produceOnce: Record<Client, (codes: readonly Code[]) => Promise<Outcome[]>> = {
  async kafkajs(codes) {
    const outcomes: Outcome[] = [];
    for (const code of codes) {
      const topic = `kafkajs-e${code}`;
      const producer = new Kafka({ clientId: topic, brokers: [proxy.bootstrap], logLevel: logLevel.NOTHING }).producer({
        idempotent: true,
        retry: { retries: 5, initialRetryTime: 20 },
      });
      await producer.connect();
      const send = (partition: number) =>
        producer.send({ topic, acks: -1, messages: [{ partition, value: 'x' }] }).then(
          ([meta]) => ({ offset: Number(meta!.baseOffset) }),
          (e: { name: string; type?: string }) => ({ error: `${e.name} ${e.type ?? ''}`.trim() }),
        );
      outcomes.push({ first: await send(0), next: await send(1) });
      await producer.disconnect();
    }
    return outcomes;
  },
  async platformatic(codes) {
    const outcomes: Outcome[] = [];
    for (const code of codes) {
      const topic = `platformatic-e${code}`;
      const producer = new PlatformaticProducer({ clientId: topic, bootstrapBrokers: [proxy.bootstrap], idempotent: true, retries: 5, retryDelay: 20 });
      const send = (partition: number) =>
        producer.send({ messages: [{ topic, partition, value: Buffer.from('x') }] }).then(
          (result) => ({ offset: Number(result.offsets![0]!.offset) }),
          (err: unknown) => ({ error: platformaticError(err) }),
        );
      outcomes.push({ first: await send(0), next: await send(1) });
      await producer.close();
    }
    return outcomes;
  },
  async librdkafka(codes) {
    const r = await runPython<Record<string, Outcome & { fatal: string | null }>>('confluent_produce_errors.py', [proxy.bootstrap, 'librdkafka', ...codes]);
    return codes.map((c) => {
      const { first, next, fatal } = r[c]!;
      return { first: fatal === null || 'offset' in first ? first : { error: `${first.error}, a fatal error` }, next };
    });
  },
  async 'kafka-python'(codes) {
    const r = await runPython<Record<string, Outcome>>('kafka_python_produce_errors.py', [proxy.bootstrap, 'kafka-python', ...codes]);
    return codes.map((c) => r[c]!);
  },
};

for (const client of CLIENTS) {
  test(`${client}: what it does with each error brook can return on the produce path`, { timeout: 120_000 }, async (t) => {
    const outcomes = await produceOnce[client](CODES);
    const rows = {} as Record<Code, string>;
    for (const [i, code] of CODES.entries()) {
      rows[code] = await observe(client, code, outcomes[i]!);
      t.diagnostic(`${client} ${code}: ${rows[code]}`);
    }
    assert.deepEqual(rows, EXPECTED[client], 'the client behaves otherwise than the README says: update both');
  });
}
