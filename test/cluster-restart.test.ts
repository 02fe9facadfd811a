/**
 * A simulated cluster's leaderships outlive a new start over the same data directory
 * (`cluster.json`): leaders, leader epochs, replicas and where each epoch began come back, also
 * after a kill -9 at any point, as they were when last kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../src/protocol/messages/create-topics.js';
import { MetadataRequest, MetadataResponse } from '../src/protocol/messages/metadata.js';
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../src/protocol/messages/offset-for-leader-epoch.js';
import { valuesBatch } from './helpers/batch.js';
import { LineProcess } from './helpers/line-process.js';
import { startServe } from './helpers/serve-process.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { produceBatch } from './helpers/wire-produce.js';

const CHILD = fileURLToPath(new URL('./helpers/cluster-child.ts', import.meta.url));

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'brook-cluster-restart-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A connection to node `nodeId` of `broker`. */
function connect(broker: Broker, nodeId: number): Promise<WireClient> {
  return WireClient.connect(
    Number(
      broker.cluster.nodes
        .find((n) => n.nodeId === nodeId)!
        .bootstrap.split(':')
        .at(-1),
    ),
  );
}

/** Each partition of `topic` as Metadata describes it: [leader, leader epoch, replicas]. */
async function described(broker: Broker, topic: string): Promise<[number, number, number[]][]> {
  const client = await connect(broker, 1);
  try {
    const { topics } = await client.request(MetadataRequest, MetadataResponse, 12, {
      topics: [{ name: topic, topicId: '00000000-0000-0000-0000-000000000000' }],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    return [...topics[0]!.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex).map((p) => [p.leaderId, p.leaderEpoch, [...p.replicaNodes]]);
  } finally {
    client.close();
  }
}

test('leaders, epochs and replicas come back at a new start over the same nodes and data directory', async (t) => {
  const dataDir = await tempDir(t);
  let broker = await startBroker({ nodes: 3, dataDir, port: 0 });
  const client = await connect(broker, 1);
  const created = await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name: 'kept', numPartitions: 3, replicationFactor: 3, assignments: [], configs: [] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  client.close();
  assert.equal(created.topics[0]!.errorCode, 0);
  broker.cluster.moveLeader('kept', 0, 2);
  const leader = await connect(broker, 2);
  assert.equal((await produceBatch(leader, 'kept', 0, valuesBatch(5))).errorCode, 0);
  leader.close();
  broker.cluster.moveLeader('kept', 0, 3);
  broker.cluster.moveLeader('kept', 1, 3);
  const before = await described(broker, 'kept');
  assert.deepEqual(
    before.map(([l, e]) => [l, e]),
    [
      [3, 2],
      [3, 1],
      [3, 0],
    ],
  );
  await broker.close();

  broker = await startBroker({ nodes: 3, dataDir, port: 0 });
  try {
    assert.deepEqual(await described(broker, 'kept'), before);
    // Where epoch 1 ended, where epoch 2 began: at the five records written under it.
    const at3 = await connect(broker, 3);
    const { topics } = await at3.request(OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, 4, {
      replicaId: -1,
      topics: [{ topic: 'kept', partitions: [{ partition: 0, currentLeaderEpoch: 2, leaderEpoch: 1 }] }],
    });
    at3.close();
    assert.deepEqual([topics[0]!.partitions[0]!.leaderEpoch, Number(topics[0]!.partitions[0]!.endOffset)], [1, 5]);
  } finally {
    await broker.close();
  }
});

test('over other nodes, or from a damaged file, leaderships are placed anew or refused; one node keeps none', async (t) => {
  const dataDir = await tempDir(t);
  let broker = await startBroker({ nodes: 3, dataDir, port: 0 });
  const client = await connect(broker, 1);
  await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
    topics: [{ name: 'kept', numPartitions: 2, replicationFactor: 3, assignments: [], configs: [] }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  client.close();
  broker.cluster.moveLeader('kept', 0, 3);
  await broker.close();
  // Two nodes: node 3 is gone, so the partitions are placed over nodes 1 and 2 at epoch 0.
  broker = await startBroker({ nodes: 2, dataDir, port: 0 });
  try {
    assert.deepEqual(
      (await described(broker, 'kept')).map(([l, e]) => [l, e]),
      [
        [1, 0],
        [2, 0],
      ],
    );
  } finally {
    await broker.close();
  }
  await writeFile(
    join(dataDir, 'cluster.json'),
    '{"version": 1, "nodes": [1, 2, 3], "topics": {"x": {"replicationFactor": 1, "partitions": [{"leader": 7}]}}}',
  );
  await assert.rejects(startBroker({ nodes: 3, dataDir, port: 0 }), /cluster\.json is JSON, but not of the form brook writes there/);
});

test('killed at any point while leaders move, a new start takes back every move kept, and at most the one under way', { timeout: 180_000 }, async (t) => {
  for (const kept of [1, 7, 20, 45]) {
    const dataDir = await tempDir(t);
    const child = LineProcess.command<{ partition: number; leader: number }>('cluster-child', process.execPath, ['--import', 'tsx', CHILD, dataDir], 60_000);
    await child.until((lines) => lines.length >= kept, `${kept} moves are kept`, 60_000);
    child.kill();
    await until(() => !child.running, 'the child is gone');
    const moves = [0, 1, 2].map((p) => child.lines.filter((l) => l.partition === p));
    const broker = await startBroker({ nodes: 3, dataDir, port: 0 });
    try {
      const restored = await described(broker, 'moving');
      restored.forEach(([leader, epoch, replicas], p) => {
        const acked = moves[p]!;
        assert.deepEqual([...replicas].sort(), [1, 2, 3], `partition ${p}'s replicas`);
        assert.ok(epoch === acked.length || epoch === acked.length + 1, `partition ${p}: epoch ${epoch} after ${acked.length} moves kept`);
        if (epoch === acked.length) assert.equal(leader, acked.at(-1)?.leader ?? p + 1, `partition ${p}'s leader`);
      });
    } finally {
      await broker.close();
    }
  }
});

test('brook serve --nodes 3, killed once CreateTopics answered, starts again with the replicas it placed', async (t) => {
  const dataDir = await tempDir(t);
  const metadataOf = async (port: number): Promise<number[][]> => {
    const client = await WireClient.connect(port);
    try {
      const { topics } = await client.request(MetadataRequest, MetadataResponse, 12, {
        topics: [{ name: 'served', topicId: '00000000-0000-0000-0000-000000000000' }],
        allowAutoTopicCreation: false,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      });
      return [...topics[0]!.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex).map((p) => [p.leaderId, ...p.replicaNodes]);
    } finally {
      client.close();
    }
  };
  let serve = await startServe(['--nodes', '3'], dataDir);
  try {
    const client = await WireClient.connect(serve.port);
    const created = await client.request(CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [{ name: 'served', numPartitions: 3, replicationFactor: 3, assignments: [], configs: [] }],
      timeoutMs: 1000,
      validateOnly: false,
    });
    client.close();
    assert.equal(created.topics[0]!.errorCode, 0);
  } finally {
    await serve.stop('SIGKILL');
  }
  serve = await startServe(['--nodes', '3'], dataDir);
  try {
    assert.deepEqual(await metadataOf(serve.port), [
      [1, 1, 2, 3],
      [2, 2, 3, 1],
      [3, 3, 1, 2],
    ]);
  } finally {
    await serve.stop();
  }
});
