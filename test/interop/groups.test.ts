import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
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
async function splitGroup(script: string, topic: string, group: string): Promise<Member[]> {
  const members = [0, 1].map(() => LineProcess.python<MemberLine>(script, [serve.bootstrap, topic, group]));
  started.push(...members);
  await Promise.all(members.map((m) => m.until(() => assignment(m).length === 2, 'it holds two partitions', 60_000)));
  assert.deepEqual(members.flatMap(assignment).sort(), [0, 1, 2, 3]);
  return members;
}

/** Sends `prefix`0 … round-robin over the partitions with kafkajs; returns the values. */
async function produce(topic: string, prefix: string, count: number): Promise<string[]> {
  const producer = kafkajs(serve.bootstrap).producer();
  await producer.connect();
  const values = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  await producer.send({ topic, messages: values.map((value, i) => ({ partition: i % PARTITIONS, value })) });
  await producer.disconnect();
  return values;
}

/** Waits for `count` messages over the members, then checks each read only its own partitions. */
async function readSplit(members: Member[], count: number): Promise<[number, number, string][]> {
  await until(() => members.reduce((n, m) => n + reads(m).length, 0) >= count, `${count} messages are read`);
  for (const m of members) assert.ok(reads(m).every(([p]) => assignment(m).includes(p)), 'a member reads only its partitions');
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
