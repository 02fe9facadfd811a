/** Transactions over the wire against the real broker: the coordinator's answers, markers, read_committed, offsets, timeouts. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { DescribeProducersRequest, DescribeProducersResponse } from '../src/protocol/messages/describe-producers.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../src/protocol/messages/describe-transactions.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../src/protocol/messages/add-partitions-to-txn.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../src/protocol/messages/list-offsets.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../src/protocol/messages/list-transactions.js';
import { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../src/protocol/messages/write-txn-markers.js';
import { valuesBatch } from './helpers/batch.js';
import { growth, scrape } from './helpers/scrape.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';
import { committedOffset, readPartition, WireTxnProducer } from './helpers/wire-txn.js';

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker({ transactionAbortTimedOutTransactionCleanupIntervalMs: 50, metricsPort: 0 });
  client = await WireClient.connect(broker.port);
});

after(async () => {
  client.close();
  await broker.close();
});

async function latest(topic: string, partition: number, committed: boolean): Promise<number> {
  const r = await client.request(ListOffsetsRequest, ListOffsetsResponse, 4, {
    replicaId: -1,
    isolationLevel: committed ? 1 : 0,
    timeoutMs: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 }] }],
  });
  return Number(r.topics[0]!.partitions[0]!.offset);
}

async function txnStartOffset(topic: string, partition: number, producerId: bigint): Promise<bigint | undefined> {
  const r = await client.request(DescribeProducersRequest, DescribeProducersResponse, 0, { topics: [{ name: topic, partitionIndexes: [partition] }] });
  return r.topics[0]!.partitions[0]!.activeProducers.find((a) => a.producerId === producerId)?.currentTxnStartOffset;
}

async function describe(transactionalId: string): Promise<DescribeTransactionsResponse['transactionStates'][number]> {
  const r = await client.request(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: [transactionalId] });
  return r.transactionStates[0]!;
}

test('a committed transaction becomes visible to read_committed at once on every partition; an aborted one never does', async () => {
  await createTopic(client, 'atomic', 2);
  const before = await scrape(broker.metricsPort!);
  const p = new WireTxnProducer(client, 'atomic-tx');
  assert.equal(await p.init(), ErrorCode.NONE);
  assert.deepEqual(await p.add('atomic', [0, 1]), [ErrorCode.NONE, ErrorCode.NONE]);
  assert.equal((await p.send('atomic', 0, 3, 'a')).errorCode, ErrorCode.NONE);
  assert.equal((await p.send('atomic', 1, 2, 'b')).errorCode, ErrorCode.NONE);
  // Open: read_uncommitted sees it, read_committed stops at its first offset.
  assert.deepEqual((await readPartition(client, 'atomic', 0, false)).values, ['a0', 'a1', 'a2']);
  const open = await readPartition(client, 'atomic', 0, true);
  assert.deepEqual([open.values, open.lastStableOffset, open.highWatermark], [[], 0, 3]);
  assert.equal(await latest('atomic', 0, true), 0);
  assert.equal(await latest('atomic', 0, false), 3);
  assert.equal((await describe('atomic-tx')).transactionState, 'Ongoing');
  assert.equal(await txnStartOffset('atomic', 1, p.producerId), 0n, 'DescribeProducers shows where the open transaction began');
  const open1 = await scrape(broker.metricsPort!);
  assert.ok(open1.get('brook_open_transactions')! >= 1);
  assert.ok(open1.get('brook_last_stable_offset_lag')! >= 5, 'both partitions wait for the transaction');

  assert.equal(await p.end(true), ErrorCode.NONE);
  const committed0 = await readPartition(client, 'atomic', 0, true);
  const committed1 = await readPartition(client, 'atomic', 1, true);
  assert.deepEqual([committed0.values, committed0.markers, committed0.lastStableOffset], [['a0', 'a1', 'a2'], ['commit'], 4]);
  assert.deepEqual([committed1.values, committed1.markers], [['b0', 'b1'], ['commit']]);
  assert.equal(await latest('atomic', 0, true), 4);
  assert.equal(await txnStartOffset('atomic', 1, p.producerId), -1n);

  // The next transaction is aborted: read_committed drops it, read_uncommitted keeps it.
  assert.deepEqual(await p.add('atomic', [0]), [ErrorCode.NONE]);
  await p.send('atomic', 0, 2, 'x');
  assert.equal(await p.end(false), ErrorCode.NONE);
  await p.add('atomic', [0]);
  await p.send('atomic', 0, 1, 'c');
  assert.equal(await p.end(true), ErrorCode.NONE);
  const all = await readPartition(client, 'atomic', 0, false);
  assert.deepEqual(all.values, ['a0', 'a1', 'a2', 'x0', 'x1', 'c0']);
  const visible = await readPartition(client, 'atomic', 0, true);
  assert.deepEqual(
    [visible.values, visible.markers],
    [
      ['a0', 'a1', 'a2', 'c0'],
      ['commit', 'abort', 'commit'],
    ],
  );
  // A retried EndTxn of the completed transaction succeeds; the other outcome is refused.
  assert.equal(await p.end(true), ErrorCode.NONE);
  assert.equal(await p.end(false), ErrorCode.INVALID_TXN_STATE);
  assert.equal((await describe('atomic-tx')).transactionState, 'CompleteCommit');
  const ended = 'brook_transactions_ended_total';
  assert.deepEqual(
    growth(before, await scrape(broker.metricsPort!), ['brook_transactions_begun_total', `${ended}{outcome="committed"}`, `${ended}{outcome="aborted"}`]),
    { brook_transactions_begun_total: 3, [`${ended}{outcome="committed"}`]: 2, [`${ended}{outcome="aborted"}`]: 1 },
  );
});

test('a transactional batch goes only to a partition added to an open transaction', async () => {
  await createTopic(client, 'guarded', 2);
  const p = new WireTxnProducer(client, 'guarded-tx');
  await p.init();
  assert.equal((await p.send('guarded', 0, 1)).errorCode, ErrorCode.INVALID_TXN_STATE);
  await p.add('guarded', [0]);
  assert.equal((await p.send('guarded', 1, 1)).errorCode, ErrorCode.INVALID_TXN_STATE);
  assert.equal((await p.send('guarded', 0, 1)).errorCode, ErrorCode.NONE);
  assert.deepEqual(await p.add('guarded', [0, 7]), [ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
  // A producer id the coordinator never handed out for a transaction.
  const stray = valuesBatch(1, { producerId: 999_999n, producerEpoch: 0, baseSequence: 0, transactional: true });
  assert.equal((await produceBatch(client, 'guarded', 0, stray)).errorCode, ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  assert.equal(await p.end(true), ErrorCode.NONE);
});

test('a new producer of the same transactional id aborts the open transaction and fences the old one everywhere', async () => {
  await createTopic(client, 'fenced', 1);
  const zombie = new WireTxnProducer(client, 'fenced-tx');
  await zombie.init();
  await zombie.add('fenced', [0]);
  await zombie.send('fenced', 0, 2, 'z');
  // The first InitProducerId of the new producer is answered CONCURRENT_TRANSACTIONS while the old transaction is aborted.
  const fresh = new WireTxnProducer(client, 'fenced-tx');
  assert.equal(await fresh.initOnce(), ErrorCode.CONCURRENT_TRANSACTIONS);
  assert.equal(await fresh.init(), ErrorCode.NONE);
  assert.equal(fresh.producerId, zombie.producerId);
  assert.equal(fresh.epoch, zombie.epoch + 2);
  // The zombie can neither write nor add nor commit.
  assert.equal((await zombie.send('fenced', 0, 1, 'late')).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  assert.deepEqual(await zombie.add('fenced', [0]), [ErrorCode.PRODUCER_FENCED]);
  assert.deepEqual(await zombie.add('fenced', [0], 1), [ErrorCode.INVALID_PRODUCER_EPOCH]);
  assert.equal(await zombie.end(true), ErrorCode.PRODUCER_FENCED);
  assert.equal(await zombie.end(true, 1), ErrorCode.INVALID_PRODUCER_EPOCH);
  const read = await readPartition(client, 'fenced', 0, true);
  assert.deepEqual([read.values, read.markers, read.lastStableOffset], [[], ['abort'], 3]);
  assert.equal((await readPartition(client, 'fenced', 0, false)).values.length, 2);
});

test('offsets committed in a transaction are the group’s only once it commits', async () => {
  await createTopic(client, 'offsets-in', 1);
  await createTopic(client, 'offsets-out', 1);
  const fetchOffset = (): Promise<number> => committedOffset(client, 'txn-group', 'offsets-in', 0);
  const p = new WireTxnProducer(client, 'offsets-tx');
  await p.init();
  await p.add('offsets-out', [0]);
  await p.send('offsets-out', 0, 1);
  // Without AddOffsetsToTxn first the group is not in the transaction.
  assert.deepEqual(await p.commitOffsets('txn-group', 'offsets-in', { 0: 5 }), [ErrorCode.INVALID_TXN_STATE]);
  assert.equal(await p.addOffsets('txn-group'), ErrorCode.NONE);
  assert.deepEqual(await p.commitOffsets('txn-group', 'offsets-in', { 0: 5 }), [ErrorCode.NONE]);
  assert.equal(await fetchOffset(), -1);
  assert.equal(await p.end(true), ErrorCode.NONE);
  assert.equal(await fetchOffset(), 5);

  await p.addOffsets('txn-group');
  await p.commitOffsets('txn-group', 'offsets-in', { 0: 9 });
  assert.equal(await p.end(false), ErrorCode.NONE);
  assert.equal(await fetchOffset(), 5, 'an aborted transaction drops its offsets');
});

test('a transaction open past its timeout is aborted by the broker, and its producer is fenced', async () => {
  await createTopic(client, 'slow', 1);
  const p = new WireTxnProducer(client, 'slow-tx', 200);
  await p.init();
  await p.add('slow', [0]);
  await p.send('slow', 0, 2);
  assert.equal((await readPartition(client, 'slow', 0, true)).lastStableOffset, 0);
  await until(async () => (await describe('slow-tx')).transactionState === 'CompleteAbort', 'the transaction is aborted');
  const read = await readPartition(client, 'slow', 0, true);
  assert.deepEqual([read.values, read.markers, read.lastStableOffset], [[], ['abort'], 3]);
  assert.equal(await p.end(true), ErrorCode.PRODUCER_FENCED);
  assert.equal((await p.send('slow', 0, 1)).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  // It may start again.
  assert.equal(await p.init(), ErrorCode.NONE);
});

test('InitProducerId refuses a timeout above transaction.max.timeout.ms', async () => {
  assert.equal(await new WireTxnProducer(client, 'too-long', 900_001).initOnce(), ErrorCode.INVALID_TRANSACTION_TIMEOUT);
});

test('DescribeTransactions and ListTransactions show what the coordinator holds', async () => {
  await createTopic(client, 'listed', 1);
  const p = new WireTxnProducer(client, 'listed-tx');
  await p.init();
  await p.add('listed', [0]);
  const d = await describe('listed-tx');
  assert.deepEqual(
    [d.errorCode, d.transactionState, d.producerId, d.producerEpoch, d.topics],
    [ErrorCode.NONE, 'Ongoing', p.producerId, p.epoch, [{ topic: 'listed', partitions: [0] }]],
  );
  assert.equal((await describe('never-seen')).errorCode, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
  const listed = await client.request(ListTransactionsRequest, ListTransactionsResponse, 1, {
    stateFilters: ['Ongoing', 'Nonsense'],
    producerIdFilters: [],
    durationFilter: -1n,
  });
  assert.deepEqual(listed.unknownStateFilters, ['Nonsense']);
  assert.ok(listed.transactionStates.some((t) => t.transactionalId === 'listed-tx' && t.transactionState === 'Ongoing'));
  assert.ok(listed.transactionStates.every((t) => t.transactionState === 'Ongoing'));
  await p.end(false);
});

test("a transactional id never initialised is INVALID_PRODUCER_ID_MAPPING to every call; markers are the coordinator's alone", async () => {
  await createTopic(client, 'unknown-id', 2);
  const p = Object.assign(new WireTxnProducer(client, 'never-initialised'), { producerId: 5n, epoch: 0 });
  assert.deepEqual(await p.add('unknown-id', [0, 1]), [ErrorCode.INVALID_PRODUCER_ID_MAPPING, ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
  assert.equal(await p.addOffsets('g'), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  assert.deepEqual(await p.commitOffsets('g', 'unknown-id', { 1: 3 }), [ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
  assert.equal(await p.end(true), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  // v4 (sent by brokers), verify-only: the partitions are in no transaction of that producer.
  const topics = [{ name: 'unknown-id', partitions: [0] }];
  const v4 = await client.request(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, 4, {
    transactions: [{ transactionalId: 'never-initialised', producerId: 5n, producerEpoch: 0, verifyOnly: true, topics }],
    v3AndBelowTransactionalId: '',
    v3AndBelowProducerId: 0n,
    v3AndBelowProducerEpoch: 0,
    v3AndBelowTopics: [],
  });
  assert.deepEqual(v4.resultsByTransaction, [
    {
      transactionalId: 'never-initialised',
      topicResults: [{ name: 'unknown-id', resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: ErrorCode.INVALID_PRODUCER_ID_MAPPING }] }],
    },
  ]);
  // As Kafka answers a client without the cluster permission: brook's coordinator writes its markers itself.
  const markers = await client.request(WriteTxnMarkersRequest, WriteTxnMarkersResponse, 1, {
    markers: [{ producerId: 5n, producerEpoch: 0, transactionResult: true, topics: [{ name: 'unknown-id', partitionIndexes: [0] }], coordinatorEpoch: 0 }],
  });
  assert.deepEqual(markers.markers, [
    { producerId: 5n, topics: [{ name: 'unknown-id', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED }] }] },
  ]);
});

test('a plain batch of a producer with an open transaction on the partition is INVALID_TXN_STATE and appends nothing', async () => {
  await createTopic(client, 'tangled', 1);
  const p = new WireTxnProducer(client, 'tangled-tx');
  await p.init();
  assert.deepEqual(await p.add('tangled', [0]), [ErrorCode.NONE]);
  assert.equal((await p.send('tangled', 0, 2, 't')).errorCode, ErrorCode.NONE);
  // The same producer id and epoch, the next sequence, without the transactional flag.
  const plain = valuesBatch(1, { producerId: p.producerId, producerEpoch: p.epoch, baseSequence: 2 }, 'plain');
  assert.equal((await produceBatch(client, 'tangled', 0, plain)).errorCode, ErrorCode.INVALID_TXN_STATE);
  assert.equal((await readPartition(client, 'tangled', 0, false)).highWatermark, 2, 'nothing appended');
  assert.equal(await p.end(false), ErrorCode.NONE);
  const all = await readPartition(client, 'tangled', 0, false);
  assert.deepEqual([all.values, all.markers, all.highWatermark], [['t0', 't1'], ['abort'], 3], 'the data batch and the marker only');
  assert.deepEqual((await readPartition(client, 'tangled', 0, true)).values, [], 'all of it aborted');
});
