/**
 * DescribeLogDirs reports the data directory as brook's one log dir, each partition with the
 * bytes of its segment files and the file system's room; AlterReplicaLogDirs has nowhere to move.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rm, stat, statfs } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse } from '../src/protocol/messages/alter-replica-log-dirs.js';
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../src/protocol/messages/describe-log-dirs.js';
import { valuesBatch } from './helpers/batch.js';
import { Admin } from './helpers/platformatic.js';
import { tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

let dataDir: string;
let broker: Broker;
let client: WireClient;

before(async () => {
  dataDir = await tempDataDir();
  // Small segments, so that a partition spans several files.
  broker = await startBroker({ port: 0, dataDir, segmentBytes: 4096 });
  client = await WireClient.connect(broker.port);
  await createTopic(client, 'dirs-a', 2);
  await createTopic(client, 'dirs-b', 1);
  for (let i = 0; i < 20; i++) assert.equal((await produceBatch(client, 'dirs-a', 0, valuesBatch(10, {}, `record-${i}-`))).errorCode, 0);
  assert.equal((await produceBatch(client, 'dirs-b', 0, valuesBatch(3))).errorCode, 0);
});

after(async () => {
  client.close();
  await broker.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The sizes of a partition directory's `.log` files, as the test sees them on disk. */
async function segmentFileBytes(topic: string, partition: number): Promise<{ files: number; bytes: number }> {
  const dir = join(dataDir, `${topic}-${partition}`);
  const logs = (await readdir(dir)).filter((name) => name.endsWith('.log'));
  const sizes = await Promise.all(logs.map(async (name) => (await stat(join(dir, name))).size));
  return { files: logs.length, bytes: sizes.reduce((a, b) => a + b, 0) };
}

const sizes = (result: DescribeLogDirsResponse['results'][number]): Record<string, number> =>
  Object.fromEntries(result.topics.flatMap((t) => t.partitions.map((p) => [`${t.name}-${p.partitionIndex}`, Number(p.partitionSize)])));

test("every partition, when none is named, with the bytes of its segment files; v4 adds the file system's total and usable bytes", async () => {
  const a0 = await segmentFileBytes('dirs-a', 0);
  assert.ok(a0.files > 1, `dirs-a-0 spans ${a0.files} segment files`);
  const res = await client.request(DescribeLogDirsRequest, DescribeLogDirsResponse, 4, { topics: null });
  assert.equal(res.errorCode, 0);
  assert.equal(res.results.length, 1);
  const [dir] = res.results;
  assert.deepEqual([dir!.errorCode, dir!.logDir], [0, resolve(dataDir)]);
  assert.deepEqual(sizes(dir!), { 'dirs-a-0': a0.bytes, 'dirs-a-1': 0, 'dirs-b-0': (await segmentFileBytes('dirs-b', 0)).bytes });
  assert.ok(dir!.topics.every((t) => t.partitions.every((p) => p.offsetLag === 0n && !p.isFutureKey)));
  const fs = await statfs(dataDir);
  assert.equal(dir!.totalBytes, BigInt(fs.blocks * fs.bsize));
  // Others may write to the file system meanwhile: usable bytes are compared loosely.
  assert.ok(Math.abs(Number(dir!.usableBytes) - fs.bavail * fs.bsize) < 256 * 1024 * 1024, `usable ${dir!.usableBytes}`);
});

test("the partitions named that brook has, through @platformatic/kafka's admin", async () => {
  const admin = new Admin({ clientId: 'dirs-admin', bootstrapBrokers: [broker.bootstrap] });
  try {
    const [described] = await admin.describeLogDirs({
      topics: [
        { name: 'dirs-b', partitions: [0, 5] },
        { name: 'dirs-none', partitions: [0] },
      ],
    });
    assert.equal(described!.broker, 1);
    assert.deepEqual(
      described!.results.map((r) => [r.logDir, r.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, Number(p.partitionSize)])])]),
      [[resolve(dataDir), [['dirs-b', [[0, (await segmentFileBytes('dirs-b', 0)).bytes]]]]]],
    );
  } finally {
    await admin.close();
  }
});

test('older versions carry no file system sizes', async () => {
  const res = await client.request(DescribeLogDirsRequest, DescribeLogDirsResponse, 1, { topics: [{ topic: 'dirs-a', partitions: [1] }] });
  assert.deepEqual(sizes(res.results[0]!), { 'dirs-a-1': 0 });
  assert.deepEqual([res.results[0]!.totalBytes, res.results[0]!.usableBytes], [-1n, -1n]);
});

test('AlterReplicaLogDirs: to the data directory changes nothing, elsewhere is LOG_DIR_NOT_FOUND, a partition brook lacks REPLICA_NOT_AVAILABLE', async () => {
  const res = await client.request(AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse, 2, {
    dirs: [
      { path: resolve(dataDir), topics: [{ name: 'dirs-a', partitions: [0, 9] }] },
      { path: '/elsewhere', topics: [{ name: 'dirs-b', partitions: [0] }] },
    ],
  });
  assert.deepEqual(
    res.results.map((t) => [t.topicName, t.partitions.map((p) => [p.partitionIndex, p.errorCode])]),
    [
      [
        'dirs-a',
        [
          [0, 0],
          [9, ErrorCode.REPLICA_NOT_AVAILABLE],
        ],
      ],
      ['dirs-b', [[0, ErrorCode.LOG_DIR_NOT_FOUND]]],
    ],
  );
  assert.ok((await segmentFileBytes('dirs-a', 0)).bytes > 0, 'the partition stays where it was');
});
