/**
 * OffsetForLeaderEpoch: brook's one leader epoch, 0, began at the log start and ends at the high
 * watermark; answered as Kafka's leader answers for its epoch cache.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from '../src/protocol/messages/delete-records.js';
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../src/protocol/messages/offset-for-leader-epoch.js';
import { valuesBatch } from './helpers/batch.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

let broker: Broker;
let client: WireClient;

before(async () => {
  // Kafka 3.9's, which serves OffsetForLeaderEpoch from v0 (4.0 from v2): every version is asked.
  broker = await startBroker({ port: 0, kafkaVersion: '3.9' });
  client = await WireClient.connect(broker.port);
  await createTopic(client, 'epochs', 2);
  assert.equal((await produceBatch(client, 'epochs', 0, valuesBatch(5))).errorCode, 0);
});

after(async () => {
  client.close();
  await broker.close();
});

type Asked = { topic?: string; partition?: number; leaderEpoch: number; currentLeaderEpoch?: number };

async function endOf(asked: Asked, version = 4): Promise<[errorCode: number, leaderEpoch: number, endOffset: number]> {
  const { topic = 'epochs', partition = 0, leaderEpoch, currentLeaderEpoch = -1 } = asked;
  const res = await client.request(OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, version, {
    replicaId: -1,
    topics: [{ topic, partitions: [{ partition, currentLeaderEpoch, leaderEpoch }] }],
  });
  const p = res.topics[0]!.partitions[0]!;
  assert.equal(p.partition, partition);
  return [p.errorCode, p.leaderEpoch, Number(p.endOffset)];
}

test("epoch 0 ends at the high watermark, at every version; an empty partition's at 0", async () => {
  for (let version = 0; version <= 4; version++) assert.deepEqual(await endOf({ leaderEpoch: 0 }, version), [0, version >= 1 ? 0 : -1, 5], `v${version}`);
  assert.deepEqual(await endOf({ partition: 1, leaderEpoch: 0 }), [0, 0, 0]);
});

test('a later epoch, or none (-1), is undefined: -1 and -1, with no error', async () => {
  assert.deepEqual(await endOf({ leaderEpoch: 1 }), [0, -1, -1]);
  assert.deepEqual(await endOf({ leaderEpoch: -1 }), [0, -1, -1]);
});

test("an epoch before brook's one ends where it began: the log start", async () => {
  const deleted = await client.request(DeleteRecordsRequest, DeleteRecordsResponse, 2, {
    topics: [{ name: 'epochs', partitions: [{ partitionIndex: 0, offset: 2n }] }],
    timeoutMs: 1000,
  });
  assert.equal(deleted.topics[0]!.partitions[0]!.errorCode, 0);
  assert.deepEqual(await endOf({ leaderEpoch: -7 }), [0, -7, 2]);
});

test('the current leader epoch a client names is checked as Fetch checks it; unknown partitions are UNKNOWN_TOPIC_OR_PARTITION', async () => {
  assert.deepEqual(await endOf({ leaderEpoch: 0, currentLeaderEpoch: 0 }), [0, 0, 5]);
  assert.deepEqual(await endOf({ leaderEpoch: 0, currentLeaderEpoch: 3 }), [ErrorCode.UNKNOWN_LEADER_EPOCH, -1, -1]);
  assert.deepEqual(await endOf({ leaderEpoch: 0, currentLeaderEpoch: -3 }), [ErrorCode.FENCED_LEADER_EPOCH, -1, -1]);
  assert.deepEqual(await endOf({ leaderEpoch: 0, partition: 2 }), [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1]);
  assert.deepEqual(await endOf({ leaderEpoch: 0, topic: 'no-such-topic' }), [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1]);
});
