import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerCalls } from '../src/threads/worker-calls.js';
import { until } from './helpers/until.js';

test('a thread that ends once idle is started again by the next call, which a new thread answers', async () => {
  const calls = new WorkerCalls('./helpers/thread-id-worker', import.meta.url, 'the test thread', undefined, 0);
  assert.equal(calls.running, false, 'started by the first call, not before');
  const first = await calls.call(null);
  await until(() => !calls.running, 'the idle thread has ended');
  const second = await calls.call(null);
  assert.notEqual(second, first);
  assert.equal(calls.exited, false, 'ending for being idle is not exiting');
  await calls.close();
});

test('a thread with no idle end keeps answering from the one thread', async () => {
  const calls = new WorkerCalls('./helpers/thread-id-worker', import.meta.url, 'the test thread');
  const first = await calls.call(null);
  assert.equal(calls.running, true);
  assert.equal(await calls.call(null), first);
  await calls.close();
});
