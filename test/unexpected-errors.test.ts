/**
 * Exceptions are for I/O only. An I/O failure is KAFKA_STORAGE_ERROR; any other exception is a
 * bug: logged as one with its stack, answered UNKNOWN_SERVER_ERROR, and the connection goes on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startBroker } from '../src/broker/start-broker.js';
import { storageFailure } from '../src/broker/storage-error.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { AlterConfigsRequest, AlterConfigsResponse } from '../src/protocol/messages/alter-configs.js';
import { batch, openLog, tempDir, written } from './helpers/log.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

interface Logged {
  readonly msg: string;
  readonly bug?: boolean;
  readonly err?: { readonly type: string; readonly message: string; readonly stack: string };
}

/** A real pino logger, and what it wrote. */
function capturedLogger(): { logger: pino.Logger; logged: Logged[] } {
  const logged: Logged[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(JSON.parse(chunk.toString()) as Logged);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), logged };
}

/** The error a failed call of the file system threw. */
async function thrownBy(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('the call did not fail');
}

test('a failed file system call, and a failed partition wrapping its write error, are I/O: KAFKA_STORAGE_ERROR, not logged as bugs', async (t) => {
  const dir = await tempDir(t);
  const missing = await thrownBy(() => open(join(dir, 'no-such-dir', 'file'), 'r'));
  // A real partition log whose next segment's file name is taken by a directory: its roll fails.
  const log = await openLog(t, join(dir, 'p-0'), { segmentBytes: 1024 });
  const first = batch(2);
  await log.whenWritten(written(log.append(first.bytes, first.header, Date.now())) + 1);
  await mkdir(join(dir, 'p-0', '00000000000000000002.log'));
  const big = batch(200);
  const failedWrite = await thrownBy(() => log.whenWritten(written(log.append(big.bytes, big.header, Date.now())) + 199));
  assert.ok(log.failed);
  const failedAppend = (() => {
    try {
      log.append(first.bytes, first.header, Date.now());
    } catch (err) {
      return err;
    }
    throw new Error('a failed partition took an append');
  })();
  const { logger, logged } = capturedLogger();
  for (const err of [missing, failedWrite, failedAppend]) {
    assert.equal(storageFailure(logger, err, {}, 'append failed'), ErrorCode.KAFKA_STORAGE_ERROR, String(err));
  }
  assert.deepEqual(
    logged.map((l) => [l.msg, l.bug]),
    [
      ['append failed', undefined],
      ['append failed', undefined],
      ['append failed', undefined],
    ],
  );
});

test('an exception of a bug (TypeError, RangeError) is UNKNOWN_SERVER_ERROR, logged as a bug with its stack', () => {
  const typeError = (() => {
    try {
      return (JSON.parse('{}') as { list: string[] }).list.includes('x');
    } catch (err) {
      return err;
    }
  })();
  assert.ok(typeError instanceof TypeError);
  const { logger, logged } = capturedLogger();
  for (const err of [typeError, new RangeError('batch holds 10 bytes, its header says 12')]) {
    assert.equal(storageFailure(logger, err, { topic: 't', partition: 0 }, 'append failed'), ErrorCode.UNKNOWN_SERVER_ERROR);
  }
  assert.deepEqual(
    logged.map((l) => [l.msg, l.bug, l.err?.type]),
    [
      ['bug: append failed', true, 'TypeError'],
      ['bug: append failed', true, 'RangeError'],
    ],
  );
  assert.match(logged[0]!.err!.stack, /^TypeError: .*\n\s+at /);
});

test('a handler that throws unexpectedly is answered UNKNOWN_SERVER_ERROR, logged as a bug, and its connection goes on', async (t) => {
  const { logger, logged } = capturedLogger();
  const broker = await startBroker({ port: 0, logger });
  const client = await WireClient.connect(broker.port);
  t.after(async () => {
    client.close();
    await broker.close();
  });
  await createTopic(client, 'altered', 1);
  // A config named after a property every object has reaches code that takes it for a known
  // config and throws a TypeError: a real bug (issue 32's prototype names). Once configs are
  // looked up in a Map, this is INVALID_CONFIG, and this test needs another unexpected exception.
  const altered = await client.request(AlterConfigsRequest, AlterConfigsResponse, 2, {
    validateOnly: false,
    resources: [{ resourceType: 2, resourceName: 'altered', configs: [{ name: 'constructor', value: '1' }] }],
  });
  assert.deepEqual(
    altered.responses.map((r) => [r.resourceType, r.resourceName, r.errorCode]),
    [[2, 'altered', ErrorCode.UNKNOWN_SERVER_ERROR]],
  );
  const bug = logged.find((l) => l.bug === true);
  assert.equal(bug?.msg, 'bug: AlterConfigsRequest threw');
  assert.match(bug.err!.stack, /^TypeError: .*\n\s+at /);
  // The same connection serves the next request.
  await createTopic(client, 'after', 1);
});
