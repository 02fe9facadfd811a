import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from '../src/broker/start-broker.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { buildBatch, valuesBatch } from './helpers/batch.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic, produceBatch } from './helpers/wire-produce.js';

const HOUR = 3_600_000;

test('a batch stamped further ahead than log.message.timestamp.after.max.ms is refused with INVALID_TIMESTAMP and not stored', async (t) => {
  const broker = await startBroker({ port: 0 });
  t.after(() => broker.close());
  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  await createTopic(client, 'stamps', 1);

  const ahead = await produceBatch(client, 'stamps', 0, valuesBatch(3, { baseTimestamp: Date.now() + 2 * HOUR }));
  assert.equal(ahead.errorCode, ErrorCode.INVALID_TIMESTAMP);
  // The batch's latest timestamp counts, here its second record's.
  const lastAhead = await produceBatch(client, 'stamps', 0, buildBatch([{ value: Buffer.from('now') }, { value: Buffer.from('later'), timestampDelta: 2 * HOUR }]));
  assert.equal(lastAhead.errorCode, ErrorCode.INVALID_TIMESTAMP);
  const near = await produceBatch(client, 'stamps', 0, valuesBatch(3, { baseTimestamp: Date.now() + HOUR / 2 }));
  assert.deepEqual(near, { errorCode: 0, baseOffset: 0 }, 'within the hour, stored at the start of the log');
  const old = await produceBatch(client, 'stamps', 0, valuesBatch(3, { baseTimestamp: Date.now() - 30 * 24 * HOUR }));
  assert.deepEqual(old, { errorCode: 0, baseOffset: 3 }, 'no limit on the past, as Kafka by default');
});

test('the limit is the broker setting: a broker allowing a day takes a batch two hours ahead', async (t) => {
  const broker = await startBroker({ port: 0, messageTimestampAfterMaxMs: 24 * HOUR });
  t.after(() => broker.close());
  const client = await WireClient.connect(broker.port);
  t.after(() => client.close());
  await createTopic(client, 'stamps', 1);
  assert.deepEqual(await produceBatch(client, 'stamps', 0, valuesBatch(3, { baseTimestamp: Date.now() + 2 * HOUR })), { errorCode: 0, baseOffset: 0 });
});
