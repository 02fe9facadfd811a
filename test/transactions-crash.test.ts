/**
 * Transactions across `kill -9` of `brook serve`: what was committed stays committed, what was
 * open stays open for its producer to end (or is aborted at its timeout), what was decided but
 * cut short is completed, and nothing comes back to life at a later restart.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../src/protocol/messages/describe-transactions.js';
import { startServe, type ServeProcess } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';
import { storeTxnState } from './helpers/txn-state-log.js';
import { committedOffset, readPartition, WireTxnProducer } from './helpers/wire-txn.js';

async function stateOf(client: WireClient, transactionalId: string): Promise<string> {
  const r = await client.request(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: [transactionalId] });
  return r.transactionStates[0]!.transactionState;
}

async function restart(serve: ServeProcess): Promise<{ serve: ServeProcess; client: WireClient }> {
  await serve.stop('SIGKILL');
  const next = await startServe([], serve.dataDir);
  return { serve: next, client: await WireClient.connect(next.port) };
}

async function openTransactionAcrossKills(t: TestContext, commit: boolean): Promise<void> {
  let serve = await startServe();
  t.after(() => serve.stop('SIGKILL'));
  let client = await WireClient.connect(serve.port);
  await createTopic(client, 'out', 1);
  await createTopic(client, 'in', 1);
  const done = new WireTxnProducer(client, 'done');
  await done.init();
  await done.add('out', [0]);
  await done.send('out', 0, 3, 'c');
  await done.addOffsets('g');
  await done.commitOffsets('g', 'in', { 0: 3 });
  assert.equal(await done.end(true), ErrorCode.NONE);
  const open = new WireTxnProducer(client, 'open');
  await open.init();
  await open.add('out', [0]);
  const first = await open.send('out', 0, 2, 'o');
  assert.equal(first.baseOffset, 4);
  await open.addOffsets('g');
  await open.commitOffsets('g', 'in', { 0: 5 });
  client.close();

  // Open across two kills; the producer carries on after each.
  for (let round = 0; round < 2; round++) {
    ({ serve, client } = await restart(serve));
    open.reconnect(client);
    const committed = await readPartition(client, 'out', 0, true);
    assert.deepEqual(committed.values, ['c0', 'c1', 'c2'], `round ${round}: the open records stay hidden`);
    assert.equal(committed.lastStableOffset, 4, `round ${round}: the open transaction holds the last stable offset`);
    assert.equal(await stateOf(client, 'open'), 'Ongoing');
    assert.equal(await committedOffset(client, 'g', 'in', 0), 3);
    // The retry of the last batch is a duplicate, answered with its first copy's offset.
    const retried = await open.resend('out', 0, 2, round === 0 ? 'o' : 'p');
    assert.deepEqual(retried, { errorCode: ErrorCode.NONE, baseOffset: round === 0 ? 4 : 6 });
    if (round === 0) assert.equal((await open.send('out', 0, 2, 'p')).errorCode, ErrorCode.NONE);
    else client.close();
  }
  ({ serve, client } = await restart(serve));
  open.reconnect(client);
  assert.equal(await open.end(commit), ErrorCode.NONE);
  for (let round = 0; round < 2; round++) {
    const committed = await readPartition(client, 'out', 0, true);
    const written = commit ? ['o0', 'o1', 'p0', 'p1'] : [];
    assert.deepEqual(committed.values, ['c0', 'c1', 'c2', ...written], 'every record once, or none');
    assert.deepEqual(committed.markers, ['commit', commit ? 'commit' : 'abort'], 'one marker each, never written again');
    assert.equal(committed.lastStableOffset, committed.highWatermark);
    assert.equal(await committedOffset(client, 'g', 'in', 0), commit ? 5 : 3);
    assert.equal(await stateOf(client, 'open'), commit ? 'CompleteCommit' : 'CompleteAbort');
    ({ serve, client } = await restart(serve));
  }
  client.close();
}

test('kill -9 inside an open transaction: it stays open, and committed afterwards every record is read once', (t) => openTransactionAcrossKills(t, true));

test('kill -9 inside an open transaction: aborted afterwards, none of its records is read', (t) => openTransactionAcrossKills(t, false));

test('kill -9 with the producer gone: its transaction is aborted at its timeout from its start, and the LSO moves on', async (t) => {
  // No sweep runs: only the start's check, which counts the timeout from the transaction's start, can abort it.
  const noSweep = ['--transaction-abort-timed-out-transaction-cleanup-interval-ms', '2147483647'];
  let serve = await startServe(noSweep);
  t.after(() => serve.stop('SIGKILL'));
  let client = await WireClient.connect(serve.port);
  await createTopic(client, 'out', 1);
  const gone = new WireTxnProducer(client, 'gone', 1);
  await gone.init();
  await gone.add('out', [0]);
  await gone.send('out', 0, 2, 'g');
  client.close();
  await serve.stop('SIGKILL');
  serve = await startServe(noSweep, serve.dataDir);
  client = await WireClient.connect(serve.port);
  t.after(() => client.close());
  assert.equal(await stateOf(client, 'gone'), 'CompleteAbort');
  const read = await readPartition(client, 'out', 0, true);
  assert.deepEqual(read.values, []);
  assert.deepEqual(read.markers, ['abort']);
  assert.equal(read.lastStableOffset, read.highWatermark);
  gone.reconnect(client);
  assert.equal(await gone.end(true), ErrorCode.PRODUCER_FENCED);
});

test('kill -9 after a commit was decided but before its markers: the restart completes the commit', async (t) => {
  let serve = await startServe();
  t.after(() => serve.stop('SIGKILL'));
  let client = await WireClient.connect(serve.port);
  await createTopic(client, 'out', 2);
  await createTopic(client, 'in', 1);
  const p = new WireTxnProducer(client, 'decided');
  await p.init();
  await p.add('out', [0, 1]);
  await p.send('out', 0, 2, 'a');
  await p.send('out', 1, 1, 'b');
  await p.addOffsets('g');
  await p.commitOffsets('g', 'in', { 0: 7 });
  client.close();
  await serve.stop('SIGKILL');
  // What the coordinator stores before it writes any marker: the decision.
  const now = Date.now();
  await storeTxnState(serve.dataDir, {
    transactionalId: 'decided',
    producerId: p.producerId,
    epoch: p.epoch,
    lastProducerId: -1n,
    nextProducerId: -1n,
    lastEpoch: -1,
    timeoutMs: 60_000,
    state: 'PrepareCommit',
    partitions: [
      { topic: 'out', partition: 0 },
      { topic: 'out', partition: 1 },
    ],
    groups: [{ groupId: 'g', offsets: [{ topic: 'in', partition: 0, offset: 7n, leaderEpoch: -1, metadata: '' }] }],
    startMs: now,
    updateMs: now,
  });
  serve = await startServe([], serve.dataDir);
  client = await WireClient.connect(serve.port);
  t.after(() => client.close());
  assert.deepEqual((await readPartition(client, 'out', 0, true)).values, ['a0', 'a1']);
  assert.deepEqual((await readPartition(client, 'out', 1, true)).values, ['b0']);
  assert.equal(await committedOffset(client, 'g', 'in', 0), 7);
  assert.equal(await stateOf(client, 'decided'), 'CompleteCommit');
  // The producer's retried EndTxn is answered as done.
  const again = Object.assign(new WireTxnProducer(client, 'decided'), { producerId: p.producerId, epoch: p.epoch });
  assert.equal(await again.end(true), ErrorCode.NONE);
});
