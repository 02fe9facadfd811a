/** startBroker as a library user meets it: the built package entry, several brokers, clean shutdown. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { startBroker, type Broker, type BrokerOptions } from 'brook';
import { kafkajs } from './helpers/kafkajs.js';
import { Producer as PlatformaticProducer } from './helpers/platformatic.js';
import { tempDataDir } from './helpers/serve-process.js';

const ROOT = new URL('..', import.meta.url);

async function produceOne(broker: Broker, topic: string, value: string): Promise<void> {
  const producer = kafkajs(broker.bootstrap).producer({ idempotent: true });
  await producer.connect();
  await producer.send({ topic, messages: [{ value, partition: 0 }] });
  await producer.disconnect();
}

/** Each topic's end offsets, partition by partition. */
async function endOffsets(broker: Broker): Promise<Record<string, string[]>> {
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  try {
    const topics = await admin.listTopics();
    const offsets = await Promise.all(topics.map((t) => admin.fetchTopicOffsets(t)));
    return Object.fromEntries(topics.map((t, i) => [t, offsets[i]!.map((p) => p.high)]));
  } finally {
    await admin.disconnect();
  }
}

/** Whether something can listen on `port` right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: '127.0.0.1', port }, () => probe.close(() => resolve(true)));
  });
}

test('several brokers run side by side in one process, each with its own data', async () => {
  const brokers = await Promise.all([startBroker(), startBroker(), startBroker({ partitions: 3 })]);
  try {
    assert.equal(new Set(brokers.map((b) => b.port)).size, 3);
    assert.equal(new Set(brokers.map((b) => b.dataDir)).size, 3);
    for (const [i, broker] of brokers.entries()) assert.equal(broker.bootstrap, `127.0.0.1:${broker.port}`, `broker ${i}`);
    await Promise.all(brokers.map((b, i) => (i === 1 ? Promise.resolve() : produceOne(b, 'shared-name', `from ${i}`))));
    assert.deepEqual(await Promise.all(brokers.map(endOffsets)), [{ 'shared-name': ['1'] }, {}, { 'shared-name': ['1', '0', '0'] }]);
  } finally {
    await Promise.all(brokers.map((b) => b.close()));
  }
});

test('close frees the ports, removes a temporary data directory and can be called again', async () => {
  const broker = await startBroker({ metricsPort: 0 });
  const { port, metricsPort, dataDir } = broker;
  assert.ok(metricsPort !== undefined && metricsPort > 0);
  assert.equal(await portIsFree(port), false);
  await Promise.all([broker.close(), broker.close()]);
  await broker.close();
  assert.equal(await portIsFree(port), true);
  assert.equal(await portIsFree(metricsPort), true);
  await assert.rejects(stat(dataDir), { code: 'ENOENT' });

  const again = await startBroker({ port, metricsPort });
  assert.equal(again.port, port);
  assert.equal(again.metricsPort, metricsPort);
  await again.close();
});

test('a taken metrics port fails startBroker and leaves nothing listening', async () => {
  const holder = await startBroker();
  const port = holder.port;
  await holder.close();
  const taken = await startBroker();
  try {
    await assert.rejects(startBroker({ port, metricsPort: taken.port }), { code: 'EADDRINUSE' });
    assert.equal(await portIsFree(port), true);
  } finally {
    await taken.close();
  }
});

test('an unknown option, or a value of the wrong type or out of range, is refused rather than ignored or failing later', async () => {
  const refused: [Record<string, unknown>, RegExp][] = [
    [{ idleTimeoutMs: 500 }, /unknown option 'idleTimeoutMs'.*connectionsMaxIdleMs/],
    [{ flush: 'interval:100' }, /option 'flush' cannot be "interval:100"/],
    [{ advertisedListener: 'example.com:1234' }, /option 'advertisedListener'/],
    [{ segmentBytes: '1024' }, /option 'segmentBytes'/],
    [{ autoCreateTopics: 'no' }, /option 'autoCreateTopics'/],
    [{ flush: { intervalMs: 0 } }, /option 'flush'/],
    [{ tls: { cert: 'c', key: 'k' } }, /option 'tls'/],
    // Values of the right type out of the setting's range, which would fail later, on a request.
    [{ partitions: 0 }, /option 'partitions' cannot be 0: a whole number from 1 to 100000/],
    [{ partitions: 2.5 }, /option 'partitions' cannot be 2.5/],
    [{ maxQueuedResponsesPerConnection: 0 }, /option 'maxQueuedResponsesPerConnection' cannot be 0/],
    [{ flush: { intervalMs: Infinity } }, /option 'flush' cannot be \{"intervalMs":"Infinity"\}/],
    [{ connectionsMaxIdleMs: 2 ** 31 }, /option 'connectionsMaxIdleMs' cannot be 2147483648: a whole number from 1 to 2147483647/],
    [{ advertisedListener: { host: 'example.com', port: 99999 } }, /option 'advertisedListener'.*port from 1 to 65535/],
    [{ retentionMs: -2 }, /option 'retentionMs'/],
    [{ fetchMaxBytes: -1 }, /option 'fetchMaxBytes'/],
    [{ metricsPort: 'x' }, /option 'metricsPort' cannot be "x": a whole number from 0 to 65535/],
    [{ dataDir: 42 }, /option 'dataDir' cannot be 42/],
    [{ logger: {} }, /option 'logger' cannot be \{\}: a pino logger/],
    [{ maxConnectionsPerIpOverrides: { localhost: 5 } }, /option 'maxConnectionsPerIpOverrides'.*client IP addresses/],
    [{ maxConnectionsPerIpOverrides: { '127.0.0.1': -1 } }, /option 'maxConnectionsPerIpOverrides'/],
  ];
  for (const [options, message] of refused) await assert.rejects(startBroker(options as BrokerOptions), message);
  await assert.rejects(startBroker(null as unknown as BrokerOptions), /startBroker: options must be an object, not null/);
  const broker = await startBroker({ flush: { intervalMs: 100 }, advertisedListener: { host: 'example.com', port: 1234 }, connectionsMaxIdleMs: 500 });
  await broker.close();
});

/** Whether this machine has IPv6 loopback to listen on. */
function hasIpv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: '::1', port: 0 }, () => probe.close(() => resolve(true)));
  });
}

test('on an IPv6 address, bootstrap puts the host in brackets, and a client reaches the broker through it', async (t) => {
  if (!(await hasIpv6Loopback())) return t.skip('no IPv6 loopback here');
  const broker = await startBroker({ host: '::1' });
  const producer = new PlatformaticProducer({ clientId: 'v6', bootstrapBrokers: [broker.bootstrap], idempotent: true, autocreateTopics: true });
  try {
    assert.equal(broker.bootstrap, `[::1]:${broker.port}`);
    const result = await producer.send({ messages: [{ topic: 'over-v6', partition: 0, value: Buffer.from('v') }] });
    assert.deepEqual(
      result.offsets?.map((o) => o.offset),
      [0n],
    );
  } finally {
    await producer.close();
    await broker.close();
  }
});

test('a data directory the caller names outlives close', async () => {
  const dataDir = await tempDataDir();
  const first = await startBroker({ dataDir, port: 0 });
  await produceOne(first, 'kept', 'v');
  await first.close();
  const second = await startBroker({ dataDir, port: 0 });
  try {
    assert.deepEqual(await endOffsets(second), { kept: ['1'] });
  } finally {
    await second.close();
  }
});

// Unref'd intervals never keep a process alive, so the script also counts the ones left uncleared.
const EXITS_BY_ITSELF = `
const live = new Set();
const { setInterval: set, clearInterval: clear } = globalThis;
globalThis.setInterval = (...args) => { const t = set(...args); live.add(t); return t; };
globalThis.clearInterval = (t) => { live.delete(t); clear(t); };
const { connect } = await import('node:net');
const { Kafka, logLevel } = await import('kafkajs');
const { startBroker } = await import('brook');
const broker = await startBroker({ metricsPort: 0 });
await (await globalThis.fetch('http://' + broker.host + ':' + broker.metricsPort + '/metrics')).text();
const admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
await admin.connect();
await admin.createTopics({ topics: [{ topic: 'timers', numPartitions: 2 }] });
await admin.disconnect();
const idle = connect({ host: broker.host, port: broker.port });
await new Promise((resolve) => idle.once('connect', resolve));
idle.on('error', () => {});
// A Fetch v4 long-polling an empty partition for a minute while the broker closes.
const polling = connect({ host: broker.host, port: broker.port });
await new Promise((resolve) => polling.once('connect', resolve));
polling.on('error', () => {});
const fetch = Buffer.alloc(4 + 11 + 21 + 8 + 20);
let at = fetch.writeInt32BE(fetch.length - 4, 0);
at = fetch.writeInt16BE(1, at); at = fetch.writeInt16BE(4, at); at = fetch.writeInt32BE(1, at);
at = fetch.writeInt16BE(1, at); at += fetch.write('t', at);
at = fetch.writeInt32BE(-1, at); at = fetch.writeInt32BE(60000, at); at = fetch.writeInt32BE(1, at);
at = fetch.writeInt32BE(1 << 20, at); at = fetch.writeInt8(0, at); at = fetch.writeInt32BE(1, at);
at = fetch.writeInt16BE(6, at); at += fetch.write('timers', at); at = fetch.writeInt32BE(1, at);
at = fetch.writeInt32BE(0, at); at = fetch.writeBigInt64BE(0n, at); fetch.writeInt32BE(1 << 20, at);
polling.write(fetch);
await new Promise((resolve) => setTimeout(resolve, 500));
await broker.close();
if (live.size > 0) console.error(live.size + ' intervals left running');
`;

test('a process that closed its broker exits by itself, a fetch long-polling included, and the default logger says nothing', async () => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', EXITS_BY_ITSELF], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  clearTimeout(killer);
  assert.equal(signal, null, `the process did not exit by itself:\n${output}`);
  assert.equal(code, 0, output);
  assert.equal(output, '');
});

test("the README's node:test examples are test/embed-readme.test.ts and test/faults-readme.test.ts, verbatim", async () => {
  const readme = await readFile(new URL('README.md', ROOT), 'utf8');
  for (const file of ['test/embed-readme.test.ts', 'test/faults-readme.test.ts']) {
    const example = await readFile(new URL(file, ROOT), 'utf8');
    assert.ok(readme.includes('```ts\n' + example + '```\n'), `README.md and ${file} differ`);
  }
});
