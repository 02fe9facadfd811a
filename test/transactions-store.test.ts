/** The transaction log on disk: the last state of each id after a reopen, compaction into generations, a torn tail cut, removed ids gone. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Txn } from '../src/transactions/txn-machine.js';
import { encodeTxn } from '../src/transactions/txn-records.js';
import { TxnStore } from '../src/transactions/txn-store.js';
import { tempDir } from './helpers/log.js';
import { until } from './helpers/until.js';

function txnOf(id: number, epoch: number): Txn {
  return {
    transactionalId: `t${id}`,
    producerId: BigInt(1000 + id),
    epoch,
    lastProducerId: -1n,
    lastEpoch: -1,
    timeoutMs: 60_000,
    state: epoch % 2 === 0 ? 'Ongoing' : 'PrepareCommit',
    partitions: [{ topic: 'out', partition: epoch % 3 }],
    groups: [{ groupId: 'g', offsets: [{ topic: 'in', partition: 0, offset: BigInt(epoch), leaderEpoch: -1, metadata: `m${epoch}` }] }],
    startMs: epoch,
    updateMs: epoch,
  };
}

const quiet = { flush: 'none', log: { info: () => {}, warn: () => {}, error: () => {} } } as const;
const quietAlways = { ...quiet, flush: 'always' } as const;

test('each id’s last state comes back after a reopen, across compactions, with one generation of files left', async (t) => {
  const dir = await tempDir(t);
  const store = await TxnStore.open(dir, quiet);
  const last = new Map<string, Txn>();
  // Well over the 1 MiB at which the log is compacted.
  for (let epoch = 0; epoch < 300; epoch++) {
    await Promise.all(
      Array.from({ length: 40 }, (_, id) => {
        const txn = txnOf(id, epoch);
        last.set(txn.transactionalId, txn);
        return store.put(txn);
      }),
    );
  }
  await store.close();
  const files = (await readdir(dir)).sort();
  assert.ok(
    files.some((f) => /^transactions-[1-9]\d*\.snapshot$/.test(f)),
    `compacted: ${files.join(' ')}`,
  );
  assert.equal(files.filter((f) => f.endsWith('.snapshot')).length, 1, 'older generations removed');
  const reopened = await TxnStore.open(dir, quiet);
  t.after(() => reopened.close());
  assert.deepEqual(new Map([...reopened.all()].map((txn) => [txn.transactionalId, txn])), last);
});

test('a record cut short at the log’s end is cut off, said so, and the states before it stay', async (t) => {
  const dir = await tempDir(t);
  const store = await TxnStore.open(dir, quietAlways);
  await store.put(txnOf(1, 4));
  await store.close();
  const log = (await readdir(dir)).find((f) => f.endsWith('.log'))!;
  await appendFile(join(dir, log), encodeTxn(txnOf(1, 5)).subarray(0, 20));
  const warnings: string[] = [];
  const reopened = await TxnStore.open(dir, { ...quietAlways, log: { ...quiet.log, warn: (_fields, message) => warnings.push(message) } });
  t.after(() => reopened.close());
  assert.deepEqual(reopened.get('t1'), txnOf(1, 4));
  assert.deepEqual(warnings, ['transaction states log cut where its intact records end']);
  // What comes after is appended where the intact records end.
  await reopened.put(txnOf(1, 6));
  await reopened.close();
  const again = await TxnStore.open(dir, quietAlways);
  t.after(() => again.close());
  assert.deepEqual(again.get('t1'), txnOf(1, 6));
});

test('50,000 ids removed keep neither memory nor disk: the snapshots leave them out, and a reopen does not bring them back', async (t) => {
  const dir = await tempDir(t);
  const compactionMinBytes = 64 * 1024;
  const store = await TxnStore.open(dir, { ...quiet, compactionMinBytes });
  const ids = 50_000;
  const chunk = async (each: (id: number) => Promise<void>) => {
    for (let from = 0; from < ids; from += 1000) await Promise.all(Array.from({ length: 1000 }, (_, i) => each(from + i)));
  };
  await chunk((id) => store.put(txnOf(id, 1)));
  const kept = txnOf(ids, 1);
  await store.put(kept);
  const heldBytes = await dirBytes(dir);
  await chunk((id) => store.remove(`t${id}`));
  assert.deepEqual([...store.all()], [kept]);
  // Compaction is looked at as changes are written: one made during the last leaves the next change to start it.
  await until(async () => {
    await store.put(kept);
    return (await dirBytes(dir)) < 4 * compactionMinBytes;
  }, 'the files are compacted');
  assert.ok(heldBytes > 40 * compactionMinBytes, `${heldBytes} bytes held the ids`);
  await store.close();
  const reopened = await TxnStore.open(dir, quiet);
  t.after(() => reopened.close());
  assert.deepEqual([...reopened.all()], [kept]);
});

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}
