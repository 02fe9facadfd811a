/**
 * transactional.id.expiration.ms: an id with no transaction open and no change for that long is
 * forgotten, durably; an open transaction's id never is. Each test makes its transactions with
 * the default expiration, then restarts with a tiny one and waits for what it removes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../src/protocol/messages/describe-transactions.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../src/protocol/messages/list-transactions.js';
import { closeAtEnd, tempDir } from './helpers/log.js';
import { startServe, type ServeProcess } from './helpers/serve-process.js';
import { until } from './helpers/until.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';
import { readPartition, WireTxnProducer } from './helpers/wire-txn.js';

/** Expire what may expire at the next check, and check often. */
const EXPIRING = { transactionalIdExpirationMs: 1, transactionRemoveExpiredTransactionCleanupIntervalMs: 20 };
const EXPIRING_FLAGS = ['--transactional-id-expiration-ms', '1', '--transaction-remove-expired-transaction-cleanup-interval-ms', '20'];
/** Long enough that the open transaction is never aborted at its timeout while a test runs. */
const OPEN_TIMEOUT_MS = 600_000;

async function describe(client: WireClient, transactionalId: string): Promise<DescribeTransactionsResponse['transactionStates'][number]> {
  const r = await client.request(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: [transactionalId] });
  return r.transactionStates[0]!;
}

async function listed(client: WireClient): Promise<string[]> {
  const r = await client.request(ListTransactionsRequest, ListTransactionsResponse, 0, { stateFilters: [], producerIdFilters: [], durationFilter: -1n });
  return r.transactionStates.map((s) => s.transactionalId).sort();
}

/**
 * Three ids: `idle` initialised only (Empty), `done` with a committed transaction, `open` with
 * one still open, begun before `done` last changed, so that it would expire no later than `done`
 * if an open transaction could.
 */
async function threeIds(client: WireClient): Promise<{ idle: WireTxnProducer; done: WireTxnProducer; open: WireTxnProducer }> {
  await createTopic(client, 'out', 1);
  const idle = new WireTxnProducer(client, 'idle');
  assert.equal(await idle.init(), ErrorCode.NONE);
  const open = new WireTxnProducer(client, 'open', OPEN_TIMEOUT_MS);
  assert.equal(await open.init(), ErrorCode.NONE);
  assert.deepEqual(await open.add('out', [0]), [ErrorCode.NONE]);
  assert.equal((await open.send('out', 0, 2, 'o')).errorCode, ErrorCode.NONE);
  const done = new WireTxnProducer(client, 'done');
  assert.equal(await done.init(), ErrorCode.NONE);
  assert.deepEqual(await done.add('out', [0]), [ErrorCode.NONE]);
  assert.equal((await done.send('out', 0, 1, 'd')).errorCode, ErrorCode.NONE);
  assert.equal(await done.end(true), ErrorCode.NONE);
  assert.deepEqual(await listed(client), ['done', 'idle', 'open']);
  return { idle, done, open };
}

async function brokerOn(dataDir: string, options: object = {}): Promise<{ broker: Broker; client: WireClient; close(): Promise<void> }> {
  const broker = await startBroker({ dataDir, ...options });
  const client = await WireClient.connect(broker.port);
  return {
    broker,
    client,
    async close() {
      client.close();
      await broker.close();
    },
  };
}

test('an id with no open transaction expires and its next InitProducerId starts it afresh; an open transaction never expires', async (t) => {
  const dataDir = await tempDir(t);
  const first = await brokerOn(dataDir);
  const { idle, done, open } = await threeIds(first.client).finally(() => first.close());

  const { client } = closeAtEnd(t, await brokerOn(dataDir, EXPIRING));
  await until(async () => (await listed(client)).join() === 'open', 'only the open transaction is listed');
  for (const id of ['idle', 'done']) assert.equal((await describe(client, id)).errorCode, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, id);
  const stillOpen = await describe(client, 'open');
  assert.deepEqual([stillOpen.transactionState, stillOpen.producerId], ['Ongoing', open.producerId]);

  // The forgotten producer is no one's now; the id starts again from a new producer id at epoch 0.
  done.reconnect(client);
  assert.deepEqual(await done.add('out', [0]), [ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
  const oldProducer = done.producerId;
  assert.equal(await done.init(), ErrorCode.NONE);
  assert.notEqual(done.producerId, oldProducer);
  assert.notEqual(done.producerId, idle.producerId);
  assert.equal(done.epoch, 0);

  open.reconnect(client);
  assert.equal(await open.end(true), ErrorCode.NONE);
  const read = await readPartition(client, 'out', 0, true);
  assert.deepEqual(read.values, ['o0', 'o1', 'd0']);
});

async function serveAgain(serve: ServeProcess, args: readonly string[]): Promise<{ serve: ServeProcess; client: WireClient }> {
  await serve.stop('SIGKILL');
  const next = await startServe(args, serve.dataDir);
  return { serve: next, client: await WireClient.connect(next.port) };
}

test('kill -9 after ids expired: they stay forgotten at the restart, and the open transaction stays open', async (t) => {
  let serve = await startServe();
  t.after(() => serve.stop('SIGKILL'));
  let client = await WireClient.connect(serve.port);
  const { open } = await threeIds(client);
  client.close();

  ({ serve, client } = await serveAgain(serve, EXPIRING_FLAGS));
  await until(async () => (await listed(client)).join() === 'open', 'only the open transaction is listed');
  client.close();

  // Restarted with the default expiration: nothing that expired comes back.
  ({ serve, client } = await serveAgain(serve, []));
  t.after(() => client.close());
  assert.deepEqual(await listed(client), ['open']);
  for (const id of ['idle', 'done']) assert.equal((await describe(client, id)).errorCode, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, id);
  open.reconnect(client);
  assert.equal(await open.end(false), ErrorCode.NONE);
  const read = await readPartition(client, 'out', 0, true);
  assert.deepEqual(read.values, ['d0']);
  assert.deepEqual(read.markers, ['commit', 'abort']);
});
