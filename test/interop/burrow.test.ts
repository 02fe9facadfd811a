/**
 * Burrow, LinkedIn's consumer-lag checker as Debian packages it (1.2.1, built with Sarama 1.22),
 * pointed at `brook serve`: it reads the group's commits from `__consumer_offsets` and the
 * partitions' ends by ListOffsets, and its HTTP API answers the group's lag. Burrow 1.2 will not
 * start without ZooKeeper (it keeps its own locks there), so Debian's ZooKeeper runs beside it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Consumer } from 'kafkajs';
import { kafkajs } from '../helpers/kafkajs.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { until } from '../helpers/until.js';

/** Debian's zookeeper package: its jar names the rest of its classpath. */
const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
/** The cluster's name in Burrow's config and API. */
const CLUSTER = 'brook';
/** Burrow reads the offsets topic and the partitions' ends every second; this bounds the waits, not the test's pace. */
const BURROW_LIMIT_MS = 120_000;
const OUTPUT_KEPT = 256 * 1024;

interface Child {
  readonly child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

function started(command: string, args: readonly string[], cwd?: string): Child {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // Burrow logs a line or two for each request its API answers: of a long run, the last of them.
  const keep = (b: Buffer) => (out = (out + b.toString()).slice(-OUTPUT_KEPT));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await closed;
    },
  };
}

const running = (c: Child): boolean => c.child.exitCode === null && c.child.signalCode === null;

/** A port nothing listens on now; ZooKeeper takes its port from its arguments only. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** ZooKeeper's `srvr` command, which it answers with its mode once it serves (its default four-letter-word whitelist). */
function zookeeperServes(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.end('srvr'));
    socket.on('data', (b: Buffer) => (answer += b.toString()));
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(/^Mode: standalone$/m.test(answer)));
  });
}

function burrowConfig(dir: string, zookeeper: number, bootstrap: string): string {
  // kafka-version 2.1.0: Sarama's Metadata v5, Fetch v4, ListOffsets v0 and v1. Below 0.11.0 Sarama
  // fetches with versions before v4 (the old record formats), which brook does not serve (docs/departures.md).
  return `
[general]
pidfile="${join(dir, 'burrow.pid')}"

[logging]
level="info"

[zookeeper]
servers=["127.0.0.1:${zookeeper}"]
root-path="/burrow"

[client-profile.brook]
client-id="burrow"
kafka-version="2.1.0"

[cluster.${CLUSTER}]
class-name="kafka"
servers=["${bootstrap}"]
client-profile="brook"
topic-refresh=1
offset-refresh=1

[consumer.${CLUSTER}]
class-name="kafka"
cluster="${CLUSTER}"
servers=["${bootstrap}"]
client-profile="brook"

[httpserver.default]
address="127.0.0.1:0"

[storage.default]
class-name="inmemory"
workers=2
intervals=10
expire-group=604800
min-distance=1

[evaluator.default]
class-name="caching"
expire-cache=1
`;
}

interface PartitionStatus {
  readonly topic: string;
  readonly partition: number;
  readonly current_lag: number;
}
interface GroupStatus {
  readonly group: string;
  readonly partitions: PartitionStatus[] | null;
  readonly totallag: number;
}

let serve: ServeProcess;
let dir: string;
const children: Child[] = [];
const consumers: Consumer[] = [];
let burrowLog = (): string => '';
before(async () => {
  // Burrow asks the partitions' ends with ListOffsets v0, which Kafka 4.0 removed.
  serve = await startServe(['--kafka-version', '3.9']);
  dir = await mkdtemp(join(tmpdir(), 'brook-burrow-'));
});
after(async () => {
  for (const c of consumers) await c.disconnect();
  for (const c of children.reverse()) await c.stop();
  await serve.stop();
  await Promise.all([rm(serve.dataDir, { recursive: true, force: true }), rm(dir, { recursive: true, force: true })]);
});

/** Starts ZooKeeper and Burrow on `bootstrap`; answers the address of Burrow's HTTP API. */
async function startBurrow(bootstrap: string): Promise<string> {
  const zkPort = await freePort();
  const zookeeper = started('java', [
    '-Xmx128m',
    '-Dzookeeper.admin.enableServer=false',
    '-cp',
    ZOOKEEPER_JAR,
    'org.apache.zookeeper.server.ZooKeeperServerMain',
    String(zkPort),
    join(dir, 'zookeeper'),
  ]);
  children.push(zookeeper);
  // Burrow gives up at once when ZooKeeper does not answer its first connection.
  await until(
    async () => {
      if (!running(zookeeper)) throw new Error(`ZooKeeper exited:\n${zookeeper.output()}`);
      return zookeeperServes(zkPort);
    },
    'ZooKeeper serves',
    BURROW_LIMIT_MS,
  );
  await writeFile(join(dir, 'burrow.toml'), burrowConfig(dir, zkPort, bootstrap));
  const burrow = started('Burrow', ['--config-dir', dir], dir);
  children.push(burrow);
  burrowLog = burrow.output;
  let listener = '';
  // Burrow logs where its HTTP listener listens once it has started it.
  await until(
    () => {
      if (!running(burrow)) throw new Error(`Burrow exited:\n${burrow.output()}`);
      if (!running(zookeeper)) throw new Error(`ZooKeeper exited:\n${zookeeper.output()}`);
      listener = /"msg":"started listener".*"listener":"([^"]+)"/.exec(burrow.output())?.[1] ?? '';
      return listener !== '';
    },
    'Burrow listens',
    BURROW_LIMIT_MS,
  );
  return `http://${listener}`;
}

async function ask<T>(api: string, path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${api}/v3/kafka/${CLUSTER}${path}`);
  return { status: res.status, body: (await res.json()) as T };
}

/** Polls Burrow's lag for `group` until each partition's lag is `lags[partition]`; answers the last status. */
async function lagBecomes(api: string, group: string, lags: readonly number[]): Promise<GroupStatus> {
  let last: { status: number; body: { status: GroupStatus } } | undefined;
  const perPartition = (s: GroupStatus): number[] => [...(s.partitions ?? [])].sort((a, b) => a.partition - b.partition).map((p) => p.current_lag);
  try {
    await until(
      async () => {
        last = await ask<{ status: GroupStatus }>(api, `/consumer/${group}/lag`);
        return last.status === 200 && JSON.stringify(perPartition(last.body.status)) === JSON.stringify(lags);
      },
      `Burrow reports lags ${JSON.stringify(lags)} for ${group}`,
      BURROW_LIMIT_MS,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; it last answered ${JSON.stringify(last)}; its log ends:\n${burrowLog().slice(-8192)}`);
  }
  return last!.body.status;
}

test(
  'Burrow reports a group lag as its committed offsets leave it, and the lag grows while its consumer is stopped',
  { timeout: 5 * BURROW_LIMIT_MS },
  async () => {
    const topic = 'burrow-lagged';
    const group = 'burrow-watched';
    const kafka = kafkajs(serve.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const send = (perPartition: number, prefix: string) =>
      producer.send({
        topic,
        messages: [0, 1].flatMap((partition) => Array.from({ length: perPartition }, (_, i) => ({ partition, value: `${prefix}-${partition}-${i}` }))),
      });
    await send(10, 'first');

    // The group reads everything, and commits nothing yet: committing waits for Burrow to know the
    // partitions' ends, as Burrow drops commits on partitions it has no end for.
    const consumer = kafka.consumer({ groupId: group, maxWaitTimeInMs: 100 });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let read = 0;
    await consumer.run({
      autoCommit: false,
      eachMessage: async () => {
        read++;
      },
    });
    await until(() => read === 20, 'the group reads the 20 messages', BURROW_LIMIT_MS);

    const api = await startBurrow(serve.bootstrap);
    await until(
      async () => JSON.stringify((await ask<{ offsets?: number[] }>(api, `/topic/${topic}`)).body.offsets) === '[10,10]',
      "Burrow knows the partitions' ends",
      BURROW_LIMIT_MS,
    );

    // Processed 7 of partition 0 and 3 of partition 1: 3 + 7 unread.
    await consumer.commitOffsets([
      { topic, partition: 0, offset: '7' },
      { topic, partition: 1, offset: '3' },
    ]);
    const committed = await lagBecomes(api, group, [3, 7]);
    assert.equal(committed.group, group);
    assert.equal(committed.totallag, 10);
    assert.deepEqual(
      (committed.partitions ?? []).map((p) => p.topic),
      [topic, topic],
    );

    // The consumer stops; 5 more messages per partition arrive, and the lag grows by them.
    await consumer.disconnect();
    consumers.length = 0;
    await send(5, 'second');
    await producer.disconnect();
    const stopped = await lagBecomes(api, group, [8, 12]);
    assert.equal(stopped.totallag, 20);
  },
);
