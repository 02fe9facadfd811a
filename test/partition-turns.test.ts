/** Each partition's turns: taken in the order queued, whatever the order their batches are ready in; a batch that fails frees its turn and is never an unhandled rejection. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { PartitionTurns } from '../src/broker/partition-turns.js';

test('a batch whose check fails while an earlier one still waits is answered with its failure, not left unhandled', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const turns = new PartitionTurns();
    const taken: string[] = [];
    let readyFirst!: (value: string) => void;
    const first = turns.take(new Promise<string>((resolve) => (readyFirst = resolve)), (v) => taken.push(v));
    const second = turns.take(Promise.reject(new Error('the checks thread exited')), (v: string) => taken.push(v));
    const third = turns.take(Promise.resolve('third'), (v) => taken.push(v));
    for (let i = 0; i < 5; i++) await turn();
    assert.deepEqual(taken, [], 'nothing is taken before the first turn');
    readyFirst('first');
    await first;
    await assert.rejects(second, /checks thread exited/);
    await third;
    assert.deepEqual(taken, ['first', 'third']);
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(turns.waiting, false, 'every turn freed');
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
