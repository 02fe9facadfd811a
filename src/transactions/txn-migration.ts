/**
 * The transaction states of an earlier brook's data directory, moved into `__transaction_state`
 * once, at the first start that finds them: its `transactions-<g>.snapshot` and `.log` files
 * (txn-files.ts).
 *
 * A kill at any point leaves the old form or the new, as the move of offsets does
 * (groups/offset-migration.ts): the topic is emptied first (whatever a move cut short wrote goes),
 * every state written and fsynced, and only then is the marker file written, the commit point,
 * after which the old files are removed and, last, the marker. A start that finds the marker only
 * finishes the removal.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileIfExists, syncDir, writeFileDurably } from '../files/durable-file.js';
import type { CoordinatorLog } from '../protocol/coordinator-log.js';
import type { Txn } from './txn-machine.js';
import { listTxnFiles, loadTxnFiles, TXN_FILES } from './txn-files.js';
import { txnRecord } from './txn-log-records.js';

/** Written once the states are in the topic: from then on the old files are only to be removed. */
export const TXN_MIGRATED_MARKER = 'transactions.migrated';

export interface MigrationReport {
  info(fields: object, message: string): void;
}

export async function migrateTxnFiles(dir: string, log: CoordinatorLog, report: MigrationReport): Promise<void> {
  const files = await listTxnFiles(dir);
  const marked = (await readFileIfExists(join(dir, TXN_MIGRATED_MARKER))) !== undefined;
  if (!marked) {
    if (files.snapshots.length === 0 && files.logs.length === 0 && files.temporary.length === 0) return;
    const states = new Map<string, Txn>();
    await loadTxnFiles(dir, files, (change) => {
      if ('removed' in change) states.delete(change.transactionalId);
      else states.set(change.transactionalId, change);
    });
    await log.reset();
    for (const txn of states.values()) await log.append(log.partitionFor(txn.transactionalId), [txnRecord(txn)]);
    await log.sync();
    await writeFileDurably(join(dir, TXN_MIGRATED_MARKER), '');
    report.info({ dir, transactionalIds: states.size }, 'transaction states moved into __transaction_state');
  }
  const old = await listTxnFiles(dir);
  const names = [
    ...old.snapshots.map((g) => TXN_FILES.snapshotName(g)),
    ...old.logs.map((g) => TXN_FILES.logName(g)),
    ...old.temporary,
    `${TXN_MIGRATED_MARKER}.tmp`,
  ];
  for (const name of names) await rm(join(dir, name), { force: true });
  await syncDir(dir);
  await rm(join(dir, TXN_MIGRATED_MARKER));
  await syncDir(dir);
}
