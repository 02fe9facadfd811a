/**
 * Transactions v2 (KIP-890 part 2) over the wire against the real broker: EndTxn v5 bumps the
 * epoch (a new producer id at the epoch's end), Produce v12 adds its partition, TxnOffsetCommit v5
 * its group, and a request of the transaction just ended is fenced.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import { MAX_EPOCH } from '../src/idempotence/rules.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { valuesBatch } from './helpers/batch.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';
import { storeTxnState } from './helpers/txn-state-log.js';
import { committedOffset, readPartition, WireTxnProducer } from './helpers/wire-txn.js';

let broker: Broker;
let client: WireClient;

before(async () => {
  broker = await startBroker({});
  client = await WireClient.connect(broker.port);
});

after(async () => {
  client.close();
  await broker.close();
});

test('EndTxn v5 bumps the epoch at each commit and abort and answers the new one; v4 leaves it', async () => {
  await createTopic(client, 'bump', 1);
  const p = new WireTxnProducer(client, 'bump-tx');
  assert.equal(await p.init(), ErrorCode.NONE);
  const [id, epoch] = [p.producerId, p.epoch];
  assert.deepEqual(await p.add('bump', [0]), [ErrorCode.NONE]);
  assert.equal((await p.send('bump', 0, 2, 'c')).errorCode, ErrorCode.NONE);
  const committed = await p.endAnswer(true, 5);
  assert.deepEqual([committed.errorCode, committed.producerId, committed.producerEpoch], [ErrorCode.NONE, id, epoch + 1]);
  // An abort bumps it too, with or without a transaction open.
  assert.deepEqual(await p.add('bump', [0]), [ErrorCode.NONE]);
  assert.equal((await p.send('bump', 0, 1, 'a')).errorCode, ErrorCode.NONE);
  const aborted = await p.endAnswer(false, 5);
  assert.deepEqual([aborted.errorCode, aborted.producerId, aborted.producerEpoch], [ErrorCode.NONE, id, epoch + 2]);
  const empty = await p.endAnswer(false, 5);
  assert.deepEqual([empty.errorCode, empty.producerEpoch], [ErrorCode.NONE, epoch + 3]);
  assert.deepEqual((await readPartition(client, 'bump', 0, true)).values, ['c0', 'c1']);
  // EndTxn v4 (transactions v1) keeps the epoch and answers no id.
  assert.deepEqual(await p.add('bump', [0]), [ErrorCode.NONE]);
  const v1 = await p.endAnswer(true, 4);
  assert.deepEqual([v1.errorCode, v1.producerId, v1.producerEpoch], [ErrorCode.NONE, -1n, -1]);
  assert.equal(p.epoch, epoch + 3);
});

test('EndTxn v5 retried after its answer was lost gets the same answer; the epoch before it is fenced afterwards', async () => {
  await createTopic(client, 'retry', 1);
  const p = new WireTxnProducer(client, 'retry-tx');
  await p.init();
  const [id, epoch] = [p.producerId, p.epoch];
  await p.add('retry', [0]);
  await p.send('retry', 0, 1);
  const first = await p.endAnswer(true, 5);
  const lost = Object.assign(new WireTxnProducer(client, 'retry-tx'), { producerId: id, epoch });
  const again = await lost.endAnswer(true, 5);
  assert.deepEqual([again.errorCode, again.producerId, again.producerEpoch], [first.errorCode, first.producerId, first.producerEpoch]);
  // The same epoch asking to abort is no retry: refused.
  const stale = Object.assign(new WireTxnProducer(client, 'retry-tx'), { producerId: id, epoch });
  assert.equal(await stale.end(false, 5), ErrorCode.INVALID_TXN_STATE);
  const older = Object.assign(new WireTxnProducer(client, 'retry-tx'), { producerId: id, epoch: epoch - 1 });
  assert.equal(await older.end(true, 5), ErrorCode.PRODUCER_FENCED);
});

test('Produce v12 adds a partition never added to the transaction; v11 into one is INVALID_TXN_STATE', async () => {
  await createTopic(client, 'implicit', 2);
  const p = new WireTxnProducer(client, 'implicit-tx');
  await p.init();
  assert.equal((await p.send('implicit', 0, 2, 'x', 11)).errorCode, ErrorCode.INVALID_TXN_STATE);
  assert.equal((await p.send('implicit', 0, 2, 'x', 12)).errorCode, ErrorCode.NONE);
  assert.equal((await p.send('implicit', 1, 1, 'y', 12)).errorCode, ErrorCode.NONE);
  assert.equal((await p.send('implicit', 0, 1, 'z', 12)).errorCode, ErrorCode.NONE);
  // Open: read_committed sees none of it until the commit, which writes a marker to both partitions.
  assert.deepEqual((await readPartition(client, 'implicit', 0, true)).values, []);
  assert.equal((await p.endAnswer(true, 5)).errorCode, ErrorCode.NONE);
  assert.deepEqual((await readPartition(client, 'implicit', 0, true)).values, ['x0', 'x1', 'z0']);
  assert.deepEqual((await readPartition(client, 'implicit', 1, true)).values, ['y0']);
  assert.deepEqual((await readPartition(client, 'implicit', 1, true)).markers, ['commit']);
});

test('TxnOffsetCommit v5 adds its group to the transaction without AddOffsetsToTxn; v4 is INVALID_TXN_STATE', async () => {
  await createTopic(client, 'offsets-out', 1);
  await createTopic(client, 'offsets-in', 1);
  const p = new WireTxnProducer(client, 'offsets-tx');
  await p.init();
  assert.deepEqual(await p.commitOffsets('v2-group', 'offsets-in', { 0: 5 }, 4), [ErrorCode.INVALID_TXN_STATE]);
  assert.deepEqual(await p.commitOffsets('v2-group', 'offsets-in', { 0: 5 }, 5), [ErrorCode.NONE]);
  assert.equal((await p.send('offsets-out', 0, 1, 'o', 12)).errorCode, ErrorCode.NONE);
  assert.equal(await committedOffset(client, 'v2-group', 'offsets-in', 0), -1);
  assert.equal((await p.endAnswer(true, 5)).errorCode, ErrorCode.NONE);
  assert.equal(await committedOffset(client, 'v2-group', 'offsets-in', 0), 5);
});

test('a late Produce of the transaction just ended is fenced under v2, where v1 takes it into the next one', async () => {
  await createTopic(client, 'late', 1);
  const send = (p: WireTxnProducer, epoch: number, seq: number, value: string): Promise<{ errorCode: number }> =>
    produceBatch(
      client,
      'late',
      0,
      valuesBatch(1, { producerId: p.producerId, producerEpoch: epoch, baseSequence: seq, transactional: true }, value),
      12,
      p.transactionalId,
    );
  // v2: the first transaction commits; a copy of its request arriving late is of the old epoch.
  const v2 = new WireTxnProducer(client, 'late-v2');
  await v2.init();
  const first = v2.epoch;
  assert.equal((await v2.send('late', 0, 1, 'one', 12)).errorCode, ErrorCode.NONE);
  assert.equal((await v2.endAnswer(true, 5)).errorCode, ErrorCode.NONE);
  assert.equal((await v2.send('late', 0, 1, 'two', 12)).errorCode, ErrorCode.NONE);
  assert.equal((await send(v2, first, 1, 'late')).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  assert.equal((await v2.endAnswer(false, 5)).errorCode, ErrorCode.NONE);
  // v1 (EndTxn v4): the same late batch has the epoch of the next transaction and lands in it.
  const v1 = new WireTxnProducer(client, 'late-v1');
  await v1.init();
  await v1.add('late', [0]);
  assert.equal((await v1.send('late', 0, 1, 'three')).errorCode, ErrorCode.NONE);
  assert.equal(await v1.end(true, 4), ErrorCode.NONE);
  await v1.add('late', [0]);
  assert.equal((await send(v1, v1.epoch, 1, 'late')).errorCode, ErrorCode.NONE);
  assert.equal(await v1.end(true, 4), ErrorCode.NONE);
  assert.deepEqual((await readPartition(client, 'late', 0, true)).values, ['one0', 'three0', 'late0']);
});

test('EndTxn v5 at the epoch before the last moves the producer to a new id at epoch 0, the old id fenced', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-txn-overflow-'));
  let b = await startBroker({ dataDir, port: 0 });
  let c = await WireClient.connect(b.port);
  await createTopic(c, 'overflow', 1);
  const p = new WireTxnProducer(c, 'overflow-tx');
  await p.init();
  c.close();
  await b.close();
  // The producer's epochs all but used up: stored as the coordinator would have them.
  const now = Date.now();
  const base = { transactionalId: 'overflow-tx', producerId: p.producerId, lastProducerId: -1n, lastEpoch: -1, nextProducerId: -1n, timeoutMs: 60_000 };
  await storeTxnState(dataDir, { ...base, epoch: MAX_EPOCH - 1, state: 'CompleteCommit', partitions: [], groups: [], startMs: -1, updateMs: now });
  b = await startBroker({ dataDir, port: 0 });
  c = await WireClient.connect(b.port);
  t.after(async () => {
    c.close();
    await b.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  p.reconnect(c);
  p.epoch = MAX_EPOCH - 1;
  const oldId = p.producerId;
  assert.equal((await p.send('overflow', 0, 1, 'last', 12)).errorCode, ErrorCode.NONE);
  const ended = await p.endAnswer(true, 5);
  assert.equal(ended.errorCode, ErrorCode.NONE);
  assert.notEqual(ended.producerId, oldId);
  assert.equal(ended.producerEpoch, 0);
  // A retry naming the old id and epoch gets the same answer.
  const retry = await Object.assign(new WireTxnProducer(c, 'overflow-tx'), { producerId: oldId, epoch: MAX_EPOCH - 1 }).endAnswer(true, 5);
  assert.deepEqual([retry.errorCode, retry.producerId, retry.producerEpoch], [ErrorCode.NONE, ended.producerId, 0]);
  // The new id writes its next transaction; the old one's late batch is refused.
  assert.equal((await p.send('overflow', 0, 1, 'first', 12)).errorCode, ErrorCode.NONE);
  const late = valuesBatch(1, { producerId: oldId, producerEpoch: MAX_EPOCH - 1, baseSequence: 1, transactional: true }, 'late');
  assert.notEqual((await produceBatch(c, 'overflow', 0, late, 12, 'overflow-tx')).errorCode, ErrorCode.NONE);
  assert.equal((await p.endAnswer(true, 5)).errorCode, ErrorCode.NONE);
  assert.deepEqual((await readPartition(c, 'overflow', 0, true)).values, ['last0', 'first0']);
});
