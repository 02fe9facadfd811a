/**
 * KAFKA-17754, shown with a fault that holds a transaction's Produce until the test releases it,
 * past the end of its transaction and the start of the next. Under transactions v1 (Kafka 3.9's
 * profile, EndTxn v3) the late batch lands in the next transaction, as Kafka 3.x lets it: a
 * record of an aborted transaction is read as committed. Under transactions v2 (Kafka 4.0's
 * profile, EndTxn v5 and Produce v12) the abort bumped the epoch, so the late batch is fenced and
 * read_committed sees exactly the committed transaction.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBroker, type Broker } from '../src/broker/start-broker.js';
import type { FaultHandle } from '../src/faults/registry.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';
import { readPartition, WireTxnProducer } from './helpers/wire-txn.js';

const TOPIC = 'late';

/** Waits until the fault holds its request: polls its count, whatever the time it takes. */
async function held(fault: FaultHandle): Promise<void> {
  while (fault.fired === 0) await sleep(5);
}

async function setUp(t: { after(fn: () => unknown): void }, kafkaVersion: '3.9' | '4.0'): Promise<{ broker: Broker; late: WireClient; client: WireClient }> {
  const broker = await startBroker({ kafkaVersion });
  t.after(() => broker.close());
  const client = await WireClient.connect(broker.port);
  const late = await WireClient.connect(broker.port);
  t.after(() => {
    client.close();
    late.close();
  });
  await createTopic(client, TOPIC, 1);
  return { broker, late, client };
}

test("transactions v1: a Produce held past its transaction's abort lands in the next transaction, as in Kafka 3.x", async (t) => {
  const { broker, late, client } = await setUp(t, '3.9');
  const p = new WireTxnProducer(client, 'late-v1');
  assert.equal(await p.init(), ErrorCode.NONE);
  assert.deepEqual(await p.add(TOPIC, [0]), [ErrorCode.NONE]);
  const fault = broker.faults.add({ api: 'Produce', topic: TOPIC, hold: true, count: 1 });
  p.reconnect(late);
  const delayed = p.send(TOPIC, 0, 1, 'aborted');
  await held(fault);
  p.reconnect(client);
  assert.equal(await p.end(false), ErrorCode.NONE, 'the first transaction is aborted');
  assert.deepEqual(await p.add(TOPIC, [0]), [ErrorCode.NONE], 'the next one begins, at the same epoch');
  fault.release();
  assert.equal((await delayed).errorCode, ErrorCode.NONE, 'the late batch is taken into it');
  assert.equal((await p.send(TOPIC, 0, 1, 'committed')).errorCode, ErrorCode.NONE);
  assert.equal(await p.end(true), ErrorCode.NONE);
  assert.deepEqual((await readPartition(client, TOPIC, 0, true)).values, ['aborted0', 'committed0'], 'the aborted record is read as committed');
});

test('transactions v2: a Produce held past its abort is fenced by the bumped epoch; read_committed sees exactly the commit', async (t) => {
  const { broker, late, client } = await setUp(t, '4.0');
  const p = new WireTxnProducer(client, 'late-v2');
  assert.equal(await p.init(), ErrorCode.NONE);
  const fault = broker.faults.add({ api: 'Produce', topic: TOPIC, hold: true, count: 1 });
  p.reconnect(late);
  const delayed = p.send(TOPIC, 0, 1, 'aborted', 12);
  await held(fault);
  p.reconnect(client);
  assert.equal(await p.end(false, 5), ErrorCode.NONE, 'the first transaction is aborted, the epoch bumped');
  assert.equal((await p.send(TOPIC, 0, 1, 'committed', 12)).errorCode, ErrorCode.NONE, 'the next one begins with the new epoch');
  fault.release();
  assert.equal((await delayed).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH, 'the late batch is fenced');
  assert.equal(await p.end(true, 5), ErrorCode.NONE);
  assert.deepEqual((await readPartition(client, TOPIC, 0, true)).values, ['committed0']);
});
