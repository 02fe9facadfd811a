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
import { readFailure, storageFailure } from '../src/broker/storage-error.js';
import { LogDamageError } from '../src/log/log-damage.js';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../src/protocol/messages/create-partitions.js';
import { batch, openLog, tempDir, written } from './helpers/log.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

interface Logged {
  readonly msg: string;
  readonly bug?: boolean;
  readonly err?: { readonly type: string; readonly message: string; readonly stack: string };
}

/** A real pino logger, and what it wrote. */
/** A real pino logger writing into `logged`; its `failOn` hook throws a TypeError when a line with that message is logged, as a faulty hook of a user's logger would. */
function capturedLogger(failOn?: string): { logger: pino.Logger; logged: Logged[] } {
  const logged: Logged[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(JSON.parse(chunk.toString()) as Logged);
      done();
    },
  });
  const hooks = {
    logMethod(this: pino.Logger, args: Parameters<pino.LogFn>, method: pino.LogFn): void {
      if (failOn !== undefined && args.includes(failOn)) throw new TypeError(`the logger's hook cannot log '${failOn}'`);
      method.apply(this, args);
    },
  };
  return { logger: pino({ level: 'info', hooks }, sink), logged };
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
  // Segments just large enough for the big batch, which then rolls past the first one.
  const first = batch(2);
  const big = batch(200);
  const log = await openLog(t, join(dir, 'p-0'), { segmentBytes: big.bytes.length + 1 });
  await log.whenWritten(written(log.append(first.bytes, first.header, Date.now())) + 1);
  await mkdir(join(dir, 'p-0', '00000000000000000002.log'));
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

test('a failed read is CORRUPT_MESSAGE or KAFKA_STORAGE_ERROR only for damage and I/O, logged once per run; any other exception is a bug', async (t) => {
  const dir = await tempDir(t);
  const missing = await thrownBy(() => open(join(dir, 'no-such-segment.log'), 'r'));
  const corrupt = new LogDamageError('0.log', 61, 3, 'its CRC does not match', true);
  const misplaced = new LogDamageError('0.log', 61, 3, 'offset 2 where 3 was due', false);
  const bug = new TypeError("Cannot read properties of undefined (reading 'subarray')");
  const { logger, logged } = capturedLogger();
  const read = (err: unknown, repeated = false): number => readFailure(logger, err, { topic: 't', partition: 0 }, 'reading the log failed', repeated);
  assert.deepEqual(
    [read(missing), read(corrupt), read(misplaced), read(misplaced, true), read(bug), read(bug, true)],
    [
      ErrorCode.KAFKA_STORAGE_ERROR,
      ErrorCode.CORRUPT_MESSAGE,
      ErrorCode.KAFKA_STORAGE_ERROR,
      ErrorCode.KAFKA_STORAGE_ERROR,
      ErrorCode.UNKNOWN_SERVER_ERROR,
      ErrorCode.UNKNOWN_SERVER_ERROR,
    ],
  );
  assert.deepEqual(
    logged.map((l) => [l.msg, l.bug]),
    [
      ['reading the log failed', undefined],
      ['reading the log failed', undefined],
      ['reading the log failed', undefined],
      ['bug: reading the log failed', true],
      ['bug: reading the log failed', true],
    ],
  );
  assert.match(logged[3]!.err!.stack, /^TypeError: .*\n\s+at /);
});

test('a handler that throws unexpectedly is answered UNKNOWN_SERVER_ERROR, logged as a bug, and its connection goes on', async (t) => {
  const { logger, logged } = capturedLogger('partitions created');
  const broker = await startBroker({ port: 0, logger });
  const client = await WireClient.connect(broker.port);
  t.after(async () => {
    client.close();
    await broker.close();
  });
  await createTopic(client, 'grown', 1);
  // The handler's own log line throws, from the user's logger: an exception brook did not expect.
  const grown = await client.request(CreatePartitionsRequest, CreatePartitionsResponse, 3, {
    topics: [{ name: 'grown', count: 2, assignments: null }],
    timeoutMs: 1000,
    validateOnly: false,
  });
  assert.deepEqual(
    grown.results.map((r) => [r.name, r.errorCode]),
    [['grown', ErrorCode.UNKNOWN_SERVER_ERROR]],
  );
  const bug = logged.find((l) => l.bug === true);
  assert.equal(bug?.msg, 'bug: CreatePartitionsRequest threw');
  assert.match(bug.err!.stack, /^TypeError: .*\n\s+at /);
  // The same connection serves the next request.
  await createTopic(client, 'after', 1);
});
