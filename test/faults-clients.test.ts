/**
 * Each fault action against real clients, kafkajs and @platformatic/kafka, as a test suite of
 * theirs would use it: a lost acknowledgement, a retriable error, a slow answer, a dropped
 * connection, a broker restart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startBroker, type Broker } from '../src/index.js';
import { consumeAll, kafkajs } from './helpers/kafkajs.js';
import { Producer as PlatformaticProducer } from './helpers/platformatic.js';
import { scrape } from './helpers/scrape.js';
import { until } from './helpers/until.js';

let broker: Broker;

before(async () => {
  broker = await startBroker({ metricsPort: 0 });
});

after(() => broker.close());

async function sample(name: string): Promise<number> {
  return (await scrape(broker.metricsPort!)).get(name) ?? 0;
}

const DUPLICATES = 'brook_idempotent_batches_duplicate_total';

/** Sends each value alone, one after another, with a producer of `client`, calling `sent` after each; closes it after. */
async function sendEach(client: 'kafkajs' | 'platformatic', topic: string, values: readonly string[], sent: (i: number) => void = () => {}): Promise<void> {
  if (client === 'kafkajs') {
    const producer = kafkajs(broker.bootstrap, `${topic}-producer`).producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      for (const [i, value] of values.entries()) {
        await producer.send({ topic, acks: -1, messages: [{ value }] });
        sent(i);
      }
    } finally {
      await producer.disconnect();
    }
    return;
  }
  const producer = new PlatformaticProducer({
    clientId: `${topic}-producer`,
    bootstrapBrokers: [broker.bootstrap],
    idempotent: true,
    autocreateTopics: true,
    retries: 20,
    retryDelay: 50,
  });
  try {
    for (const [i, value] of values.entries()) {
      await producer.send({ messages: [{ topic, value: Buffer.from(value) }] });
      sent(i);
    }
  } finally {
    await producer.close();
  }
}

/** Every value the topic holds, sorted; the topic must hold `expected` records. */
async function stored(topic: string, expected: number): Promise<string[]> {
  const kafka = kafkajs(broker.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  assert.equal(
    offsets.reduce((n, p) => n + Number(p.high) - Number(p.low), 0),
    expected,
    `records in ${topic}`,
  );
  const seen = await consumeAll(kafka, topic, `${topic}-reader`, expected);
  return seen.map((m) => m.value).sort();
}

for (const client of ['kafkajs', 'platformatic'] as const) {
  test(`${client}: an idempotent producer whose answer was dropped ends with its record once, the retry a duplicate`, { timeout: 60_000 }, async () => {
    const topic = `${client}-lost-ack`;
    await sendEach(client, topic, ['warm-up']);
    const counted = [DUPLICATES, 'brook_faults_fired_total{api="Produce",action="dropResponse"}'];
    const before = await Promise.all(counted.map(sample));
    const lost = broker.faults.add({ api: 'Produce', topic, dropResponse: true, count: 1 });
    await sendEach(client, topic, ['paid']);
    assert.equal(lost.fired, 1);
    const grown = (await Promise.all(counted.map(sample))).map((n, i) => n - before[i]!);
    assert.deepEqual(grown, [1, 1], 'the retry was recognised as a duplicate; the fault counted');
    assert.deepEqual(await stored(topic, 2), ['paid', 'warm-up']);
  });

  test(`${client}: a retriable error answered twice is retried and written once`, { timeout: 60_000 }, async () => {
    const topic = `${client}-not-leader`;
    await sendEach(client, topic, ['warm-up']);
    const notLeader = broker.faults.add({ api: 'Produce', topic, error: 'NOT_LEADER_OR_FOLLOWER', count: 2 });
    await sendEach(client, topic, ['moved']);
    assert.equal(notLeader.fired, 2);
    assert.deepEqual(await stored(topic, 2), ['moved', 'warm-up']);
  });

  test(`${client}: a delayed answer takes at least its delay, and none once the fault is removed`, { timeout: 60_000 }, async () => {
    const topic = `${client}-slow`;
    await sendEach(client, topic, ['warm-up']);
    const slow = broker.faults.add({ api: 'Produce', topic, delayMs: 500 });
    const start = Date.now();
    await sendEach(client, topic, ['slow']);
    // A lower bound only; 5 ms for timers, which may fire a little before their time by the wall clock.
    assert.ok(Date.now() - start >= 495, `answered after ${Date.now() - start} ms`);
    assert.equal(slow.fired, 1);
    slow.remove();
    await sendEach(client, topic, ['quick']);
    assert.equal(slow.fired, 1, 'removed, it held back nothing more');
    assert.deepEqual(await stored(topic, 3), ['quick', 'slow', 'warm-up']);
  });

  test(`${client}: a connection closed on a request is reconnected and the request sent again`, { timeout: 60_000 }, async () => {
    const topic = `${client}-cut`;
    await sendEach(client, topic, ['warm-up']);
    const cut = broker.faults.add({ api: 'Produce', topic, closeConnection: true, count: 1 });
    await sendEach(client, topic, ['after-reconnect']);
    assert.equal(cut.fired, 1);
    assert.deepEqual(await stored(topic, 2), ['after-reconnect', 'warm-up']);
  });

  test(`${client}: a broker restart mid-run loses nothing acknowledged and stores nothing twice`, { timeout: 90_000 }, async () => {
    const topic = `${client}-restart`;
    const values = Array.from({ length: 60 }, (_, i) => `m${String(i).padStart(2, '0')}`);
    let restarted: Promise<void> | undefined;
    // Down for a while after the 20th acknowledgement: the sends after it wait, reconnect and go on.
    await sendEach(client, topic, values, (i) => {
      if (i === 19) restarted = broker.restart({ downMs: 300 });
    });
    await restarted;
    assert.deepEqual(await stored(topic, values.length), values);
  });
}

test('restart({ downMs }) keeps the port closed for that time, then serves the same data on it', { timeout: 60_000 }, async () => {
  const topic = 'kept-across-restart';
  await sendEach('kafkajs', topic, ['before']);
  const restarted = broker.restart({ downMs: 2000 });
  await until(() => refused(broker.port), 'the port is closed');
  await restarted;
  await sendEach('kafkajs', topic, ['after']);
  assert.deepEqual(await stored(topic, 2), ['after', 'before']);
});

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('error', () => resolve(true));
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

test("kafkajs: a consumer group rides out its coordinator's errors on FindCoordinator and OffsetFetch", { timeout: 60_000 }, async () => {
  const topic = 'coordinator-errors';
  const values = ['a', 'b', 'c'];
  await sendEach('kafkajs', topic, values);
  const find = broker.faults.add({ api: 'FindCoordinator', error: 'COORDINATOR_NOT_AVAILABLE', count: 2 });
  const fetch = broker.faults.add({ api: 'OffsetFetch', error: 'COORDINATOR_LOAD_IN_PROGRESS', count: 2 });
  try {
    assert.deepEqual(await stored(topic, values.length), values);
    assert.deepEqual([find.fired, fetch.fired], [2, 2]);
  } finally {
    broker.faults.clear();
  }
});

test('kafkajs: a DeleteTopics answered an error deletes nothing; asked again, the topic goes', { timeout: 60_000 }, async () => {
  const topic = 'deletion-refused';
  await sendEach('kafkajs', topic, ['kept']);
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  try {
    const fault = broker.faults.add({ api: 'DeleteTopics', error: 'TOPIC_DELETION_DISABLED', count: 1 });
    await assert.rejects(admin.deleteTopics({ topics: [topic] }), (err: Error) => /deletion/i.test(JSON.stringify(err, Object.getOwnPropertyNames(err))));
    assert.equal(fault.fired, 1);
    assert.ok((await admin.listTopics()).includes(topic));
    await admin.deleteTopics({ topics: [topic] });
    assert.ok(!(await admin.listTopics()).includes(topic));
  } finally {
    await admin.disconnect();
  }
});
