/**
 * `__transaction_state` read as a tool of Kafka's ecosystem would read it: plain Fetch requests,
 * and a decoder written here from Kafka's TransactionLogKey and TransactionLogValue schemas.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startBroker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { readStoredRecords } from '../src/protocol/stored-records.js';
import { kafkajs } from './helpers/kafkajs.js';
import { WireClient } from './helpers/wire-client.js';
import { fetchAllBatches } from './helpers/wire-fetch.js';
import { tempDataDir } from './helpers/serve-process.js';
import { until } from './helpers/until.js';
import { createTopic } from './helpers/wire-produce.js';
import { WireTxnProducer } from './helpers/wire-txn.js';
import { kafkaPartitionFor, SchemaReader } from './helpers/kafka-tools.js';

const TOPIC = '__transaction_state';
/** Kafka's `TransactionState` ids. */
const STATE_NAMES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'];

interface TxnStateRecord {
  readonly transactionalId: string;
  /** Null for a tombstone. */
  readonly value: {
    version: number;
    producerId: bigint;
    producerEpoch: number;
    timeoutMs: number;
    state: string;
    partitions: { topic: string; partitionIds: number[] }[] | null;
    lastUpdateMs: bigint;
    startMs: bigint;
  } | null;
}

/** TransactionLogKey (type 0, version 0), and TransactionLogValue versions 0 and 1 (flexible, tagged fields passed over). */
function decodeTxnState(key: Buffer, value: Buffer | null): TxnStateRecord {
  const k = new SchemaReader(key);
  assert.equal(k.int16(), 0, 'the key is a TransactionLogKey');
  const transactionalId = k.string(false);
  assert.ok(k.done, 'the key is read whole');
  if (value === null) return { transactionalId, value: null };
  const v = new SchemaReader(value);
  const version = v.int16();
  assert.ok(version === 0 || version === 1, `value version ${version}`);
  const flexible = version === 1;
  const producerId = v.int64();
  const producerEpoch = v.int16();
  const timeoutMs = v.int32();
  const state = STATE_NAMES[v.int8()]!;
  const count = v.arrayLength(flexible);
  const partitions =
    count < 0
      ? null
      : Array.from({ length: count }, () => {
          const topic = v.string(flexible);
          const partitionIds = Array.from({ length: v.arrayLength(flexible) }, () => v.int32());
          if (flexible) v.taggedFields();
          return { topic, partitionIds };
        });
  const lastUpdateMs = v.int64();
  const startMs = v.int64();
  if (flexible) v.taggedFields();
  assert.ok(v.done, 'the value is read whole');
  return { transactionalId, value: { version, producerId, producerEpoch, timeoutMs, state, partitions, lastUpdateMs, startMs } };
}

async function txnStateRecords(c: WireClient, partition: number): Promise<TxnStateRecord[]> {
  const records: TxnStateRecord[] = [];
  for (const batch of await fetchAllBatches(c, TOPIC, partition)) {
    for (const r of readStoredRecords(batch, 0, Infinity, 1 << 20)) records.push(decodeTxnState(r.key!, r.value));
  }
  return records;
}

test("a kafkajs transaction's states are records of __transaction_state in Kafka's format, in the partition Kafka would choose: Ongoing, PrepareCommit, CompleteCommit", async (t) => {
  const broker = await startBroker();
  t.after(() => broker.close());
  const kafka = kafkajs(broker.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'out', numPartitions: 2 }] });
  const producer = kafka.producer({ transactionalId: 'state-reader', idempotent: true, maxInFlightRequests: 1, transactionTimeout: 45_000 });
  await producer.connect();
  t.after(() => producer.disconnect());
  const txn = await producer.transaction();
  await txn.send({
    topic: 'out',
    messages: [
      { value: 'a', partition: 0 },
      { value: 'b', partition: 1 },
    ],
  });
  await txn.commit();

  const c = await WireClient.connect(broker.port);
  t.after(() => c.close());
  const home = kafkaPartitionFor('state-reader', 50);
  const records = await txnStateRecords(c, home);
  assert.ok(records.length > 0, `records in ${TOPIC}-${home}`);
  for (const r of records) assert.equal(r.transactionalId, 'state-reader');
  const states = records.map((r) => r.value!.state).filter((s, i, all) => i === 0 || all[i - 1] !== s);
  assert.deepEqual(states, ['Empty', 'Ongoing', 'PrepareCommit', 'CompleteCommit']);
  const first = records[0]!.value!;
  assert.equal(first.partitions, null, 'an Empty state has no partitions, as Kafka writes it');
  for (const r of records) {
    assert.equal(r.value!.version, 1);
    assert.equal(r.value!.producerId, first.producerId, 'one producer id throughout');
    assert.equal(r.value!.producerEpoch, first.producerEpoch);
    assert.equal(r.value!.timeoutMs, 45_000);
  }
  const prepare = records.find((r) => r.value!.state === 'PrepareCommit')!.value!;
  assert.deepEqual(prepare.partitions!.flatMap((p) => p.partitionIds.map((id) => `${p.topic}-${id}`)).sort(), ['out-0', 'out-1']);
  const ongoing = records.find((r) => r.value!.state === 'Ongoing')!.value!;
  assert.ok(ongoing.startMs > 0n && ongoing.startMs <= prepare.lastUpdateMs, 'the transaction starts before it is decided');
  for (let partition = 0; partition < 50; partition++) {
    if (partition !== home) assert.deepEqual(await txnStateRecords(c, partition), [], `nothing in ${TOPIC}-${partition}`);
  }
});

test("a transactional id whose __transaction_state partition failed is answered COORDINATOR_NOT_AVAILABLE, as Kafka maps the log's error; other ids carry on", async (t) => {
  const dataDir = await tempDataDir();
  const broker = await startBroker({ port: 0, dataDir, transactionStateLogSegmentBytes: 1024 });
  const c = await WireClient.connect(broker.port);
  t.after(async () => {
    c.close();
    await broker.close();
  });
  await createTopic(c, 'out', 1);
  const doomed = new WireTxnProducer(c, 'doomed');
  assert.equal(await doomed.init(), ErrorCode.NONE);
  // Every later segment's file name is taken by a directory, so the partition's next roll fails.
  const dir = join(dataDir, `${TOPIC}-${kafkaPartitionFor('doomed', 50)}`);
  for (let offset = 1; offset < 100; offset++) await mkdir(join(dir, `${String(offset).padStart(20, '0')}.log`));
  const answers: number[] = [];
  for (let i = 0; i < 40 && !answers.includes(ErrorCode.COORDINATOR_NOT_AVAILABLE); i++) answers.push(await doomed.init());
  assert.ok(answers.includes(ErrorCode.COORDINATOR_NOT_AVAILABLE), `answers: ${answers.join(' ')}`);
  assert.equal(answers.at(-1), ErrorCode.COORDINATOR_NOT_AVAILABLE, 'a state the partition cannot take is not taken, and the client is told to retry');
  const other = ['other-a', 'other-b', 'other-c'].find((id) => kafkaPartitionFor(id, 50) !== kafkaPartitionFor('doomed', 50))!;
  const fine = new WireTxnProducer(c, other);
  assert.equal(await fine.init(), ErrorCode.NONE);
  assert.deepEqual(await fine.add('out', [0]), [ErrorCode.NONE]);
});

test('an expired transactional id leaves a tombstone as its last record in __transaction_state', async (t) => {
  const broker = await startBroker({ transactionalIdExpirationMs: 1, transactionRemoveExpiredTransactionCleanupIntervalMs: 20 });
  const c = await WireClient.connect(broker.port);
  t.after(async () => {
    c.close();
    await broker.close();
  });
  const p = new WireTxnProducer(c, 'short-lived');
  assert.equal(await p.init(), ErrorCode.NONE);
  const home = kafkaPartitionFor('short-lived', 50);
  await until(async () => (await txnStateRecords(c, home)).at(-1)?.value === null, 'the tombstone');
  const records = await txnStateRecords(c, home);
  assert.deepEqual(
    records.map((r) => r.value?.state ?? null),
    ['Empty', null],
  );
});
