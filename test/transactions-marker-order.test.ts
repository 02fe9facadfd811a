/**
 * A transaction's marker takes its turn in the partition's arrival order, over the wire: kafkajs
 * commits (or aborts) while another producer's batch, sent before, is still being checked (held
 * by a holdCheck fault); the log holds the transaction's data, that batch, then the marker.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../src/protocol/messages/describe-transactions.js';
import { FetchRequest, FetchResponse } from '../src/protocol/messages/fetch.js';
import { isControl, readBatchHeader } from '../src/protocol/record-batch.js';
import { batchesIn } from './helpers/log.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchOf } from './helpers/wire-fetch.js';

let broker: Broker;
let client: WireClient;
let kafka: Kafka;

before(async () => {
  broker = await startBroker();
  client = await WireClient.connect(broker.port);
  kafka = new Kafka({ clientId: 'marker-order', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
});

after(async () => {
  client.close();
  await broker.close();
});

async function txnState(transactionalId: string): Promise<string> {
  const r = await client.request(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: [transactionalId] });
  return r.transactionStates[0]!.transactionState;
}

/** The partition's batches in log order: each a producer's data ('txn' or 'plain') or the transaction's marker. */
async function stored(topic: string, transactionalProducer: bigint): Promise<string[]> {
  const response = await client.request(FetchRequest, FetchResponse, 12, fetchOf(topic, [0]));
  return batchesIn(response.responses[0]!.partitions[0]!.records ?? Buffer.alloc(0)).map((batch) => {
    const header = readBatchHeader(batch);
    if (isControl(header.attributes)) return 'marker';
    return header.producerId === transactionalProducer ? 'txn' : 'plain';
  });
}

for (const end of ['commit', 'abort'] as const) {
  test(`a ${end} marker asked for while a batch sent before it is still checked is stored after that batch`, async () => {
    const topic = `marker-order-${end}`;
    const transactionalId = `marker-order-${end}`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();
    const txnProducer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
    const plainProducer = kafka.producer();
    await Promise.all([txnProducer.connect(), plainProducer.connect()]);
    try {
      const txn = await txnProducer.transaction();
      await txn.send({ topic, messages: [{ value: 'in the transaction' }] });
      const transactionalProducer = readBatchHeader((await firstBatch(topic))!).producerId;

      // The plain batch arrives and takes its turn, but its check is held.
      const hold = broker.faults.add({ api: 'Produce', topic, holdCheck: true, count: 1 });
      const plainSent = plainProducer.send({ topic, acks: -1, messages: [{ value: 'sent before the end' }] });
      await until(() => hold.fired === 1, 'the plain batch is held');

      // The end is asked for. Once the coordinator has stored its Prepare state it has asked for the
      // marker, in the same turn of the event loop; a marker that skipped its turn is written already.
      const ended = end === 'commit' ? txn.commit() : txn.abort();
      await until(async () => (await txnState(transactionalId)) !== 'Ongoing', `the coordinator has stored the ${end}`);

      hold.release();
      await Promise.all([plainSent, ended]);
      assert.deepEqual(await stored(topic, transactionalProducer), ['txn', 'plain', 'marker']);
    } finally {
      await Promise.all([txnProducer.disconnect(), plainProducer.disconnect()]);
    }
  });
}

async function firstBatch(topic: string): Promise<Buffer | undefined> {
  const response = await client.request(FetchRequest, FetchResponse, 12, fetchOf(topic, [0]));
  return batchesIn(response.responses[0]!.partitions[0]!.records ?? Buffer.alloc(0))[0];
}
