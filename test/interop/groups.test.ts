import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { kafkajs } from '../helpers/kafkajs.js';
import { LineProcess } from '../helpers/line-process.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { until } from '../helpers/until.js';

interface MemberLine {
  readonly assigned?: number[];
  readonly read?: [partition: number, offset: number, value: string];
}
type Member = LineProcess<MemberLine>;

const PARTITIONS = 4;
let serve: ServeProcess;
const started: Member[] = [];
before(async () => {
  serve = await startServe(['--partitions', String(PARTITIONS)]);
});
after(async () => {
  for (const m of started) m.kill();
  await serve.stop();
  await rm(serve.dataDir, { recursive: true, force: true });
});

const assignment = (m: Member) => m.lines.filter((l) => l.assigned).at(-1)?.assigned ?? [];
const reads = (m: Member) => m.lines.flatMap((l) => (l.read ? [l.read] : []));

/** Two members of `group`, once each holds two of the four partitions. */
async function splitGroup(
  script: string,
  topic: string,
  group: string,
  bootstrap = serve.bootstrap,
  extra: readonly (string | number)[] = [],
): Promise<Member[]> {
  const members = [0, 1].map(() => LineProcess.python<MemberLine>(script, [bootstrap, topic, group, ...extra]));
  started.push(...members);
  await Promise.all(members.map((m) => m.until(() => assignment(m).length === 2, 'it holds two partitions', 60_000)));
  assert.deepEqual(members.flatMap(assignment).sort(), [0, 1, 2, 3]);
  return members;
}

/** Sends `prefix`0 … round-robin over the partitions with kafkajs; returns the values. */
async function produce(topic: string, prefix: string, count: number, bootstrap = serve.bootstrap): Promise<string[]> {
  const producer = kafkajs(bootstrap).producer();
  await producer.connect();
  const values = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  await producer.send({ topic, messages: values.map((value, i) => ({ partition: i % PARTITIONS, value })) });
  await producer.disconnect();
  return values;
}

/** Waits for `count` messages over the members, then checks each read only its own partitions. */
async function readSplit(members: Member[], count: number): Promise<[number, number, string][]> {
  await until(() => members.reduce((n, m) => n + reads(m).length, 0) >= count, `${count} messages are read`);
  for (const m of members)
    assert.ok(
      reads(m).every(([p]) => assignment(m).includes(p)),
      'a member reads only its partitions',
    );
  return members.flatMap(reads);
}

async function groupResumesAfterCommit(script: string, name: string, t: { diagnostic(msg: string): void }): Promise<void> {
  const topic = `${name}-grouped`;
  const admin = kafkajs(serve.bootstrap).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }] });
  await admin.disconnect();

  const first = await splitGroup(script, topic, `${name}-group`);
  const firstValues = await produce(topic, 'first-', 400);
  const firstRead = await readSplit(first, firstValues.length);
  assert.deepEqual(firstRead.map((r) => r[2]).sort(), [...firstValues].sort());
  await Promise.all(first.map((m) => m.finish()));

  // A new pair in the same group must start where the first pair committed: offset 100 of each partition.
  const second = await splitGroup(script, topic, `${name}-group`);
  const secondValues = await produce(topic, 'second-', 40);
  const secondRead = await readSplit(second, secondValues.length);
  assert.deepEqual(secondRead.map((r) => r[2]).sort(), [...secondValues].sort());
  assert.equal(Math.min(...secondRead.map((r) => r[1])), 100);
  await Promise.all(second.map((m) => m.finish()));
  t.diagnostic(`${name}: 2 members x 2 partitions; read ${firstRead.length}, committed, restarted, read ${secondRead.length} more with none re-read`);
}

test('confluent-kafka: two group members split four partitions, commit, and a restarted pair resumes after the commit', async (t) => {
  await groupResumesAfterCommit('confluent_group_member.py', 'confluent', t);
});

test('kafka-python: two group members split four partitions, commit, and a restarted pair resumes after the commit', async (t) => {
  await groupResumesAfterCommit('kafka_python_group_member.py', 'kafka-python', t);
});

/** A port nothing listens on now, for a broker that must come back on the same one. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen({ host: '127.0.0.1', port: 0 }, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

test('confluent-kafka: a group comes back from a broker restart, clean or SIGKILL, as it was: no rebalance, nothing read twice', async (t) => {
  const port = await freePort();
  const args = ['--port', String(port), '--partitions', String(PARTITIONS)];
  let broker = await startServe(args);
  const { dataDir, bootstrap } = broker;
  t.after(async () => {
    await broker.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  const topic = 'restarted-under-a-group';
  const admin = kafkajs(bootstrap).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }] });
  await admin.disconnect();
  // Members that commit nothing until they finish: a partition handed to another member reads from the start again.
  // Sessions of 30 s: a member that cannot reach the restarting broker for a few seconds on a
  // busy machine must not time its own session out, which is the client's doing, not the broker's.
  const members = await splitGroup('confluent_group_member.py', topic, 'through-restarts', bootstrap, [30_000]);
  const assignmentsBefore = members.map((m) => m.lines.filter((l) => l.assigned).length);
  const values = await produce(topic, 'before-', 40, bootstrap);
  await readSplit(members, values.length);
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    await broker.stop(signal);
    broker = await startServe(args, dataDir);
    values.push(...(await produce(topic, `after-${signal}-`, 40, bootstrap)));
    await readSplit(members, values.length);
  }
  await Promise.all(members.map((m) => m.finish()));
  const read = members.flatMap(reads).map((r) => r[2]);
  assert.deepEqual([...read].sort(), [...values].sort(), 'each message read once');
  assert.deepEqual(
    members.map((m) => m.lines.filter((l) => l.assigned).length),
    assignmentsBefore,
    'no member was assigned anew',
  );
});
