/** `brook producers`, the built binary, against a broker whose producers are known batch by batch. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { valuesBatch, type BatchOptions } from './helpers/batch.js';
import { runBrook } from './helpers/cli.js';
import { kafkajs } from './helpers/kafkajs.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';
import { WireTxnProducer } from './helpers/wire-txn.js';

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const HEADINGS = 'PARTITION  PRODUCER ID  EPOCH  LAST SEQUENCE  LAST TIMESTAMP  OPEN TXN FROM  WINDOW (first..last sequence @ base offset, oldest first)'.split(
  '  ',
);

let broker: Broker;

before(async () => {
  broker = await startBroker();
  const client = await WireClient.connect(broker.port);
  await createTopic(client, 'payments', 2);
  await createTopic(client, 'plain', 1);
  const send = async (partition: number, count: number, options: BatchOptions) =>
    assert.equal((await produceBatch(client, 'payments', partition, valuesBatch(count, options))).errorCode, 0);
  // Partition 0: producer 41 writes three batches and retries the second, which changes nothing;
  // producer 43 restarts with epoch 1, which starts its window anew.
  await send(0, 3, { producerId: 41n, producerEpoch: 0, baseSequence: 0, baseTimestamp: T0 });
  await send(0, 2, { producerId: 41n, producerEpoch: 0, baseSequence: 3, baseTimestamp: T0 + 1 });
  await send(0, 2, { producerId: 41n, producerEpoch: 0, baseSequence: 3, baseTimestamp: T0 + 1 });
  await send(0, 1, { producerId: 41n, producerEpoch: 0, baseSequence: 5, baseTimestamp: T0 + 2 });
  await send(0, 1, { producerId: 43n, producerEpoch: 0, baseSequence: 0, baseTimestamp: T0 + 3 });
  await send(0, 1, { producerId: 43n, producerEpoch: 1, baseSequence: 0, baseTimestamp: T0 + 4 });
  // Partition 1, producer 42: six batches, so the oldest has left its window.
  for (let seq = 0; seq < 6; seq++) await send(1, 1, { producerId: 42n, producerEpoch: 0, baseSequence: seq, baseTimestamp: T0 + 10 + seq });
  client.close();
});

after(() => broker.close());

/** The printed table as cells; columns are separated by two spaces or more. */
function cells(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));
}

const PARTITION_0 = [
  ['0', '41', '0', '5', '2025-06-01T12:00:00.002Z', '-', '0..2@0 3..4@3 5..5@5'],
  ['0', '43', '1', '0', '2025-06-01T12:00:00.004Z', '-', '0..0@7'],
];
const PARTITION_1 = [['1', '42', '0', '5', '2025-06-01T12:00:00.015Z', '-', '1..1@1 2..2@2 3..3@3 4..4@4 5..5@5']];

test('prints every producer of every partition with its window', async () => {
  const run = await runBrook(['producers', '--bootstrap', broker.bootstrap, '--topic', 'payments']);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(cells(run.stdout), [HEADINGS, ...PARTITION_0, ...PARTITION_1]);
});

test('--partition shows one partition', async () => {
  const run = await runBrook(['producers', '--bootstrap', broker.bootstrap, '--topic', 'payments', '--partition', '1']);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(cells(run.stdout), [HEADINGS, ...PARTITION_1]);
});

test("a producer's open transaction shows its first offset, and none once it commits", async () => {
  const client = await WireClient.connect(broker.port);
  try {
    await createTopic(client, 'ledger', 1);
    const txn = new WireTxnProducer(client, 'ledger-writer');
    assert.equal(await txn.init(), 0);
    assert.deepEqual(await txn.add('ledger', [0]), [0]);
    assert.equal((await txn.send('ledger', 0, 2)).errorCode, 0);
    assert.equal(await txn.end(true), 0);
    assert.deepEqual(await txn.add('ledger', [0]), [0]);
    assert.equal((await txn.send('ledger', 0, 1)).errorCode, 0);
    // Offsets 0 and 1 committed, 2 the COMMIT marker, 3 the open transaction's first record.
    const open = await runBrook(['producers', '--bootstrap', broker.bootstrap, '--topic', 'ledger']);
    assert.equal(open.code, 0, open.stderr);
    const [, row] = cells(open.stdout);
    assert.deepEqual([row![1], row![5], row![6]], [String(txn.producerId), '3', '0..1@0 2..2@3']);
    assert.equal(await txn.end(true), 0);
    const ended = cells((await runBrook(['producers', '--bootstrap', broker.bootstrap, '--topic', 'ledger'])).stdout);
    assert.equal(ended[1]![5], '-');
  } finally {
    client.close();
  }
});

test('a topic without idempotent producers says so', async () => {
  const run = await runBrook(['producers', '--bootstrap', broker.bootstrap, '--topic', 'plain']);
  assert.deepEqual([run.code, run.stdout, run.stderr], [0, "topic 'plain' has no idempotent producers\n", '']);
});

test('an unknown topic is one sentence and a failure, and is not created', async () => {
  const run = await runBrook(['producers', '--bootstrap', broker.bootstrap, '--topic', 'nope']);
  assert.deepEqual([run.code, run.stdout, run.stderr], [1, '', "brook: topic 'nope' does not exist\n"]);
  const admin = kafkajs(broker.bootstrap).admin();
  await admin.connect();
  assert.ok(!(await admin.listTopics()).includes('nope'));
  await admin.disconnect();
});

test('an unknown partition is one sentence and a failure', async () => {
  const run = await runBrook(['producers', '--bootstrap', broker.bootstrap, '--topic', 'payments', '--partition', '7']);
  assert.deepEqual([run.code, run.stdout, run.stderr], [1, '', "brook: topic 'payments' has no partition 7 (it has 2)\n"]);
});

test('an unreachable broker is one sentence and a failure', async () => {
  const gone = await startBroker();
  await gone.close();
  const run = await runBrook(['producers', '--bootstrap', gone.bootstrap, '--topic', 'payments']);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, `brook: cannot reach a broker at ${gone.bootstrap} (ECONNREFUSED)\n`);
});

test('a malformed --bootstrap is one sentence and a failure', async () => {
  const run = await runBrook(['producers', '--bootstrap', 'nonsense', '--topic', 'payments']);
  assert.deepEqual([run.code, run.stderr], [1, "brook: 'nonsense' is not HOST:PORT\n"]);
});

test('producers and transactions ask where serve listens by default', async () => {
  for (const command of ['producers', 'transactions']) {
    const help = await runBrook([command, '--help']);
    assert.match(help.stdout, /--bootstrap <host:port>\s+the broker to ask \(default: "127\.0\.0\.1:9092"\)/, command);
  }
});
