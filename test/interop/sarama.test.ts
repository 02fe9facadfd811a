import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tally, type Placed } from '../helpers/exactly-once.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { buildGoClient, type GoClient } from './go-clients.js';

/** [partition, offset, value, timestamp ms] */
type Acked = [number, number, string, number];
interface Produced {
  readonly acked: Acked[];
  readonly errors: string[];
}
interface PartitionRead {
  readonly partition: number;
  readonly oldest: number;
  readonly newest: number;
  readonly byTime?: number;
  readonly read: Placed[];
}

const PARTITIONS = 4;
let sarama: GoClient;
let serve: ServeProcess;
before(async () => {
  sarama = await buildGoClient('sarama');
  // Sarama 1.22 (Debian's) sends versions Kafka 4.0 removed whatever its Version: JoinGroup v1, DescribeConfigs v0, DescribeAcls v0.
  serve = await startServe(['--partitions', String(PARTITIONS), '--kafka-version', '3.9']);
});
after(async () => {
  await serve.stop();
  await Promise.all([rm(serve.dataDir, { recursive: true, force: true }), sarama.remove()]);
});

const exactlyOnce = { duplicates: 0, losses: 0, misplaced: 0, unacked: 0 };

/** Per partition, the messages in offset order. */
function byPartition<T extends readonly [number, number, ...unknown[]]>(placed: readonly T[]): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const p of [...placed].sort((a, b) => a[1] - b[1])) out.set(p[0], [...(out.get(p[0]) ?? []), p]);
  return out;
}

/** The index i of a value PREFIX<i>. */
const index = (value: string): number => Number(/\d+$/.exec(value)![0]);

test('Sarama: an idempotent SyncProducer and an idempotent AsyncProducer (LZ4) write across partitions; a ConsumerGroup reads every message once, in order per partition', async () => {
  const topic = 'sarama-produced';
  const count = 2000;
  const [sync, async] = await Promise.all([
    sarama.run<Produced>(['produce', serve.bootstrap, topic, count, 'sync', 's']),
    sarama.run<Produced>(['produce', serve.bootstrap, topic, count, 'async', 'a']),
  ]);
  for (const [name, p] of Object.entries({ sync, async })) {
    assert.deepEqual(p.errors, [], name);
    assert.equal(p.acked.length, count, name);
    // Idempotence with one request in flight keeps each producer's order within a partition.
    for (const messages of byPartition(p.acked).values()) {
      const sent = messages.map(([, , value]) => index(value));
      assert.deepEqual(
        sent,
        [...sent].sort((a, b) => a - b),
        `${name} order`,
      );
    }
  }
  const acked = [...sync.acked, ...async.acked].map(([p, o, v]): Placed => [p, o, v]);
  assert.equal(byPartition(acked).size, PARTITIONS, 'keys spread over every partition');

  const { read } = await sarama.run<{ read: Placed[] }>(['group-consume', serve.bootstrap, 'sarama-readers', topic, 2 * count]);
  assert.deepEqual(tally(acked, read), { acked: 2 * count, read: 2 * count, ...exactlyOnce });
  const readByPartition = new Map<number, number[]>();
  for (const [p, o] of read) readByPartition.set(p, [...(readByPartition.get(p) ?? []), o]);
  for (const [p, offsets] of readByPartition)
    assert.deepEqual(
      offsets,
      offsets.map((_, i) => i),
      `partition ${p} read in offset order from 0`,
    );
  // Nothing else in the log: each partition ends where the group stopped reading it.
  const partitions = await sarama.run<PartitionRead[]>(['read', serve.bootstrap, topic]);
  assert.deepEqual(
    partitions.map((r) => [r.partition, r.oldest, r.newest]),
    [...readByPartition].sort(([a], [b]) => a - b).map(([p, offsets]) => [p, 0, offsets.length]),
  );
});

test('Sarama: records batched with maxTimestamp -1 in their header outlive retention checks, and ListOffsets by time finds them', async () => {
  // Sarama 1.22 leaves RecordBatch.MaxTimestamp unset, which it encodes as -1, in every batch it
  // produces: the broker must take the batch's max timestamp from its records, as Kafka does.
  const checkMs = 100;
  const small = await startServe(['--segment-bytes', '8192', '--retention-check-interval-ms', String(checkMs)]);
  try {
    const topic = 'sarama-retained';
    const count = 5000;
    const produced = await sarama.run<Produced>(['produce', small.bootstrap, topic, count, 'sync', 'm']);
    assert.deepEqual(produced.errors, []);
    assert.equal(produced.acked.length, count);
    await sleep(10 * checkMs); // some ten retention checks: a max timestamp of -1 is past retention at the first

    const middle = produced.acked[count / 2]![3];
    const [{ oldest, newest, byTime, read }] = (await sarama.run<PartitionRead[]>(['read', small.bootstrap, topic, middle])) as [PartitionRead];
    // Every message is still there, and by time ListOffsets answers the first offset stamped at or after it.
    const firstAtOrAfter = Math.min(...produced.acked.filter(([, , , ts]) => ts >= middle).map(([, o]) => o));
    assert.deepEqual({ oldest, newest, byTime }, { oldest: 0, newest: count, byTime: firstAtOrAfter });
    assert.deepEqual(
      tally(
        produced.acked.map(([p, o, v]): Placed => [p, o, v]),
        read,
      ),
      { acked: count, read: count, ...exactlyOnce },
    );
  } finally {
    await small.stop();
    await rm(small.dataDir, { recursive: true, force: true });
  }
});

test('Sarama ClusterAdmin: creates, lists, describes, grows a topic, deletes its records, lists and describes a group, deletes the topic', async () => {
  const topic = 'sarama-admin';
  const group = 'sarama-admin-group';
  const { configs, groups, ...rest } = await sarama.run<{ configs: Record<string, string>; groups: Record<string, string> }>([
    'admin',
    serve.bootstrap,
    topic,
    group,
  ]);
  assert.equal(configs['retention.ms'], '604800000');
  assert.equal(configs['cleanup.policy'], 'delete');
  assert.equal(groups[group], 'consumer');
  assert.deepEqual(rest, {
    create: null,
    createAgain: `kafka server: Topic with this name already exists. - Topic 'sarama-admin' already exists.`,
    listedPartitions: 2,
    createPartitions: null,
    grownPartitions: 3,
    deleteRecords: null,
    logStartAfterDeleteRecords: 4,
    group: {
      state: 'Stable',
      protocolType: 'consumer',
      protocol: 'range',
      members: [{ clientId: 'sarama-interop', clientHost: '/127.0.0.1' }],
      assigned: { [topic]: [0, 1, 2] },
    },
    deleteTopic: null,
    listedAfterDelete: false,
  });
});

test('Sarama ClusterAdmin: an ACL listing (DescribeAcls) leaves the admin working for its next call', async () => {
  // Without an authorizer Kafka answers DescribeAcls with SECURITY_DISABLED, which Sarama 1.22's
  // ListAcls does not look at: no error and no ACLs.
  assert.deepEqual(await sarama.run(['admin-after-acls', serve.bootstrap]), { listAcls: null, acls: 0, thenDescribeCluster: null, brokers: 1 });
});
