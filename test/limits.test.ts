import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '../src/protocol/messages/api-versions.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { TcpServer } from '../src/server/tcp-server.js';
import { RequestMemoryPool } from '../src/server/request-memory-pool.js';
import { scrape } from './helpers/scrape.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';

const brokers: Broker[] = [];
after(async () => {
  await Promise.all(brokers.map((b) => b.close()));
});

async function broker(options: Parameters<typeof startBroker>[0]): Promise<Broker> {
  const b = await startBroker({ port: 0, ...options });
  brokers.push(b);
  return b;
}

async function stillServes(port: number): Promise<void> {
  const c = await WireClient.connect(port);
  const res = await c.request(ApiVersionsRequest, ApiVersionsResponse, 3, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' });
  assert.equal(res.errorCode, 0);
  c.close();
}

/** The broker's connections as its metrics count them (it must have a metrics port). */
async function openConnections(b: Broker): Promise<number | undefined> {
  return (await scrape(b.metricsPort!)).get('brook_open_connections');
}

async function closedBy(port: number, bytes: Buffer): Promise<void> {
  const c = await WireClient.connect(port);
  c.sendRaw(bytes);
  assert.equal(await c.nextFrame(), undefined, 'the broker closes the connection without answering');
}

const sizePrefix = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

test('a size prefix over --max-request-bytes, zero or negative closes that connection only', async () => {
  const b = await broker({ maxRequestBytes: 1024 });
  const bystander = await WireClient.connect(b.port);
  await closedBy(b.port, sizePrefix(1025));
  await closedBy(b.port, sizePrefix(0x7fffffff));
  await closedBy(b.port, sizePrefix(0));
  await closedBy(b.port, sizePrefix(-5));
  const res = await bystander.request(ApiVersionsRequest, ApiVersionsResponse, 0, { clientSoftwareName: '', clientSoftwareVersion: '' });
  assert.equal(res.errorCode, 0, 'other connections carry on');
  bystander.close();
  await stillServes(b.port);
});

test('unknown api key, unsupported version and garbage bodies close the connection; the broker carries on', async () => {
  const warned: string[] = [];
  const b = await broker({ logger: pino({ level: 'warn' }, { write: (line: string) => void warned.push((JSON.parse(line) as { msg: string }).msg) }) });
  const c = await WireClient.connect(b.port);
  const good = c.frame(MetadataRequest, 1, {
    topics: [],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  const withKey = (key: number, version: number): Buffer => {
    const f = Buffer.from(good);
    f.writeInt16BE(key, 4);
    f.writeInt16BE(version, 6);
    return f;
  };
  c.close();
  await closedBy(b.port, withKey(9999, 0));
  await closedBy(b.port, withKey(0, 1)); // Produce v1: below what is served
  await closedBy(b.port, withKey(3, 99)); // Metadata v99: above
  const truncated = Buffer.concat([sizePrefix(9), good.subarray(4, 13)]);
  await closedBy(b.port, truncated);
  const garbage = Buffer.concat([sizePrefix(40), good.subarray(4, 12), Buffer.alloc(32, 0x7f)]); // a client id longer than the frame
  await closedBy(b.port, garbage);
  await stillServes(b.port);
  // The log names each API as Kafka's documentation does.
  const [unknown, below, above] = warned;
  assert.equal(unknown, 'closing connection: api key 9999 is not served');
  assert.match(below!, /^closing connection: Produce v1 is not supported \(v3\.\.v\d+\)$/);
  assert.match(above!, /^closing connection: Metadata v99 is not supported \(v0\.\.v\d+\)$/);
});

test('a request that closes the connection lets the answers to those sent before it out first, as Kafka does', async () => {
  const b = await broker({});
  const c = await WireClient.connect(b.port);
  const created = await c.request(MetadataRequest, MetadataResponse, 12, {
    topics: [{ topicId: '00000000-0000-0000-0000-000000000000', name: 'quiet' }],
    allowAutoTopicCreation: true,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.equal(created.topics[0]!.errorCode, 0);
  // A fetch that waits for data, then a request of an unknown api key, in one write.
  const fetch = c.frame(FetchRequest, 12, fetchOf('quiet', [0], { maxWaitMs: 100, minBytes: 1 }));
  const unknown = Buffer.from(c.frame(ApiVersionsRequest, 3, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' }));
  unknown.writeInt16BE(9999, 4);
  c.sendRaw(Buffer.concat([fetch, unknown]));
  const frame = await c.nextFrame();
  assert.ok(frame !== undefined, 'the fetch is answered');
  const { correlationId, body } = c.decode(frame, FetchResponse, FetchRequest.apiKey, 12);
  assert.equal(correlationId, fetch.readInt32BE(8));
  assert.equal(body.responses[0]!.partitions[0]!.errorCode, 0);
  assert.equal(await c.nextFrame(), undefined, 'then the connection closes');
  await stillServes(b.port);
});

test('--max-connections refuses connections past the limit', async () => {
  const b = await broker({ maxConnections: 2, metricsPort: 0 });
  const first = await WireClient.connect(b.port);
  const second = await WireClient.connect(b.port);
  const third = await WireClient.connect(b.port);
  assert.equal(await third.nextFrame(), undefined, 'refused');
  first.close();
  await until(async () => (await openConnections(b)) === 1, 'the first connection is gone');
  await stillServes(b.port);
  second.close();
});

test('a connection the broker closes gives its --max-connections slot back once the client closes its side', async () => {
  const b = await broker({ maxConnections: 2, metricsPort: 0 });
  for (let i = 0; i < 5; i++) {
    // The client ends its side once the broker has ended its own (Node's default), as clients do.
    const c = await WireClient.connect(b.port);
    const unknownApi = Buffer.from(c.frame(ApiVersionsRequest, 3, { clientSoftwareName: 'probe', clientSoftwareVersion: '1' }));
    unknownApi.writeInt16BE(9999, 4);
    c.sendRaw(unknownApi);
    assert.equal(await c.nextFrame(), undefined, 'the broker closes the connection');
    await until(async () => (await openConnections(b)) === 0, 'the broker has let the connection go');
  }
  await stillServes(b.port);
});

test('--max-connections-per-ip closes a connection past the limit from one address; an override gives an address its own', async () => {
  const probe = { clientSoftwareName: 'probe', clientSoftwareVersion: '1' };
  const connect = async (b: Broker, count: number): Promise<WireClient[]> => {
    const clients: WireClient[] = [];
    for (let i = 0; i < count; i++) clients.push(await WireClient.connect(b.port));
    return clients;
  };
  const limited = await broker({ maxConnectionsPerIp: 2 });
  const [first, second, third] = await connect(limited, 3);
  assert.equal(await third!.nextFrame(), undefined, 'the third from 127.0.0.1 is closed');
  first!.close();
  await until(async () => {
    const [again] = await connect(limited, 1);
    try {
      return (await again!.request(ApiVersionsRequest, ApiVersionsResponse, 3, probe)).errorCode === 0;
    } catch {
      return false;
    } finally {
      again!.close();
    }
  }, 'a closed connection makes room for another from its address');
  second!.close();

  const overridden = await broker({ maxConnectionsPerIp: 2, maxConnectionsPerIpOverrides: { '127.0.0.1': 3, '::1': 0 } });
  const three = await connect(overridden, 4);
  assert.equal((await three[2]!.request(ApiVersionsRequest, ApiVersionsResponse, 3, probe)).errorCode, 0, '127.0.0.1 may have three');
  assert.equal(await three[3]!.nextFrame(), undefined, 'but not four');
  for (const c of three) c.close();
});

test('an idle connection is closed after connections.max.idle.ms', async () => {
  const b = await broker({ connectionsMaxIdleMs: 200 });
  const c = await WireClient.connect(b.port);
  assert.equal(await c.nextFrame(2000), undefined);
});

test('a request takes its declared size from the pool before its body arrives: one that does not fit waits, unread, until memory is given back', async () => {
  // 400,000 bytes, of which decompression keeps 250,000: requests share 150,000.
  const b = await broker({ queuedMaxRequestBytes: 400_000, maxRequestBytes: 150_000 });
  const holder = await WireClient.connect(b.port);
  const waiter = await WireClient.connect(b.port);
  const big = (c: WireClient, id: number): Buffer => {
    const topics = Array.from({ length: 80 }, (_, i) => ({ topicId: '00000000-0000-0000-0000-000000000000', name: `${i}-`.padEnd(1000, 'x') }));
    const f = c.frame(
      MetadataRequest,
      4,
      { topics, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false },
      id,
    );
    assert.ok(f.length > 75_000 && f.length < 150_000);
    return f;
  };
  const held = big(holder, 1);
  const waited = big(waiter, 2);
  holder.sendRaw(held.subarray(0, 100)); // a size prefix and a few bytes: its whole size is taken
  await new Promise((r) => setTimeout(r, 200));
  waiter.sendRaw(waited);
  await assert.rejects(waiter.nextFrame(500), /no response in time/, 'no room: the second request is not read yet');
  holder.sendRaw(held.subarray(100));
  assert.equal((await holder.nextFrame())!.readInt32BE(0), 1);
  assert.equal((await waiter.nextFrame())!.readInt32BE(0), 2, 'read and answered once the first was');
  holder.close();
  waiter.close();
});

test('queued.max.request.bytes must hold the largest request, as Kafka requires', async () => {
  await assert.rejects(
    startBroker({ port: 0, queuedMaxRequestBytes: 100_000, maxRequestBytes: 200_000 }),
    /queued\.max\.request\.bytes \(100000\) must be at least socket\.request\.max\.bytes \(200000\)/,
  );
});

test('a size prefix alone allocates no memory: a large request holds only what has arrived', async () => {
  const b = await broker({ queuedMaxRequestBytes: 200_000_000, maxRequestBytes: 100_000_000 });
  const holder = await WireClient.connect(b.port);
  const waiter = await WireClient.connect(b.port);
  holder.sendRaw(Buffer.concat([sizePrefix(900_000), Buffer.alloc(100)]));
  await new Promise((r) => setTimeout(r, 100));
  const before = process.memoryUsage().arrayBuffers;
  waiter.sendRaw(Buffer.concat([sizePrefix(60_000_000), Buffer.alloc(100)]));
  await new Promise((r) => setTimeout(r, 200));
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(grown < 10_000_000, `a 60 MB request that has sent 100 bytes holds ${grown} bytes`);
  holder.close();
  waiter.close();
  await stillServes(b.port);
});

test('a connection closed by a bad request takes no memory for a large request that follows it in the same read', async () => {
  const b = await broker({});
  const c = await WireClient.connect(b.port);
  // An unknown api key closes the connection as soon as its request is whole.
  const bad = Buffer.alloc(4 + 70_000, 0xee);
  bad.writeInt32BE(70_000, 0);
  c.sendRaw(bad.subarray(0, 65_536));
  await new Promise((r) => setTimeout(r, 100));
  const before = process.memoryUsage().arrayBuffers;
  c.sendRaw(Buffer.concat([bad.subarray(65_536), sizePrefix(60_000_000), Buffer.alloc(30_000)]));
  assert.equal(await c.nextFrame(), undefined, 'closed without an answer');
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(grown < 10_000_000, `the 60 MB request after the bad one holds ${grown} bytes`);
  await stillServes(b.port);
});

test('stopping the server waits until every connection is closed', async () => {
  const server = new TcpServer(
    () => undefined,
    {
      maxRequestBytes: 1000,
      maxQueuedResponses: 10,
      maxUnsentResponseBytes: 100_000,
      maxConnections: 10,
      maxConnectionsPerAddress: 10,
      idleTimeoutMs: 60_000,
    },
    new RequestMemoryPool(10_000, 1000, 0),
    { info() {}, warn() {} },
  );
  const { port } = await server.listen('127.0.0.1', 0);
  const clients = await Promise.all([1, 2, 3].map(() => WireClient.connect(port)));
  await until(() => server.connectionCount === 3, 'all three are connected');
  await server.close();
  assert.equal(server.connectionCount, 0);
  for (const c of clients) c.close();
});
