/**
 * The move of an earlier brook's transaction files into `__transaction_state`: every state comes
 * back from the topic, and `kill -9` at any point of the move leaves the old form or the new.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode } from '../src/protocol/error-codes.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../src/protocol/messages/describe-transactions.js';
import type { Txn } from '../src/transactions/txn-machine.js';
import type { TxnChange } from '../src/transactions/txn-log-records.js';
import { BROOK_BIN } from './helpers/cli.js';
import { writeOldTxnLog } from './helpers/old-txn-files.js';
import { seeded } from './helpers/seeded.js';
import { startServe, tempDataDir } from './helpers/serve-process.js';
import { WireClient } from './helpers/wire-client.js';
import { createTopic } from './helpers/wire-produce.js';

const IDS = 10_000;
const HOUR = 3_600_000;

/** Id i's first state: every third one open with a pending offset, the others committed. */
function stateOf(i: number, now: number): Txn {
  const open = i % 3 === 0;
  return {
    transactionalId: `old-${i}`,
    producerId: BigInt(5000 + i),
    epoch: i % 100,
    lastProducerId: -1n,
    lastEpoch: -1,
    nextProducerId: -1n,
    timeoutMs: HOUR,
    state: open ? 'Ongoing' : 'CompleteCommit',
    partitions: open ? [{ topic: 'out', partition: i % 2 }] : [],
    groups: open ? [{ groupId: 'g', offsets: [{ topic: 'out', partition: 0, offset: BigInt(i), leaderEpoch: -1, metadata: '' }] }] : [],
    startMs: open ? now : -1,
    updateMs: now,
  };
}

test(
  'kill -9 at random points of the move of transaction files into __transaction_state leaves the old form or the new; the states all come back',
  { timeout: 180_000 },
  async (t) => {
    const dir = await tempDataDir();
    const first = await startServe([], dir);
    const admin = await WireClient.connect(first.port);
    await createTopic(admin, 'out', 2);
    admin.close();
    await first.stop();

    const now = Date.now();
    const expected = new Map<string, Txn | undefined>();
    const changes: TxnChange[] = [];
    for (let i = 0; i < IDS; i++) {
      const txn = stateOf(i, now);
      changes.push(txn);
      expected.set(txn.transactionalId, txn);
    }
    // A later state of some committed ids, and one id removed.
    for (let i = 1; i < IDS; i += 7) {
      const before = expected.get(`old-${i}`)!;
      if (before.state !== 'CompleteCommit') continue;
      const later: Txn = { ...before, epoch: before.epoch + 1, state: 'CompleteAbort' };
      changes.push(later);
      expected.set(later.transactionalId, later);
    }
    changes.push({ transactionalId: 'old-4', removed: true });
    expected.set('old-4', undefined);
    await writeOldTxnLog(dir, changes);
    const oldBytes = await readFile(join(dir, 'transactions-0.log'));

    const random = seeded(37);
    for (let round = 0; round < 8; round++) {
      const child = spawn(process.execPath, [BROOK_BIN, 'serve', '--data-dir', dir, '--port', '0'], { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('close', resolve));
      // Killed at a random point after the topic is first made, that is within the move: it takes longer than 400 ms.
      while (!(await readdir(dir)).some((n) => n.startsWith('__transaction_state-')) && child.exitCode === null) await sleep(5);
      await sleep(Math.floor(random() * 400));
      child.kill('SIGKILL');
      await exited;
      const names = await readdir(dir);
      const old = names.includes('transactions-0.log');
      const marked = names.includes('transactions.migrated');
      // Before the marker the old file is whole; after it, only removals are left.
      assert.ok(old || !marked || names.every((n) => !n.startsWith('transactions-')), `round ${round}: ${names.join(' ')}`);
      if (old && !marked)
        assert.deepEqual(await readFile(join(dir, 'transactions-0.log')), oldBytes, `round ${round}: the old file untouched before the marker`);
    }

    const serve = await startServe([], dir);
    t.after(() => serve.stop('SIGKILL'));
    const c = await WireClient.connect(serve.port);
    t.after(() => c.close());
    assert.deepEqual(
      (await readdir(dir)).filter((n) => n.startsWith('transactions')),
      [],
      'the old files and the marker are gone',
    );
    const described = await c.request(DescribeTransactionsRequest, DescribeTransactionsResponse, 0, { transactionalIds: [...expected.keys()] });
    for (const d of described.transactionStates) {
      const txn = expected.get(d.transactionalId);
      if (txn === undefined) {
        assert.equal(d.errorCode, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, `${d.transactionalId} stays removed`);
        continue;
      }
      assert.deepEqual(
        [d.errorCode, d.transactionState, d.producerId, d.producerEpoch, d.transactionTimeoutMs, d.topics.map((p) => `${p.topic}-${p.partitions.join(',')}`)],
        [ErrorCode.NONE, txn.state, txn.producerId, txn.epoch, txn.timeoutMs, txn.partitions.map((p) => `${p.topic}-${p.partition}`)],
        d.transactionalId,
      );
    }
    assert.equal(described.transactionStates.length, IDS);
  },
);
