/**
 * The transaction states of an earlier brook's data directory, moved into `__transaction_state`
 * once, at the first start that finds them: its `transactions-<g>.snapshot` and `.log` files
 * (txn-files.ts). A kill at any point leaves the old form or the new (files/move-once.ts): the
 * topic is emptied first, so whatever a move cut short wrote goes, and every state is written
 * and fsynced before the marker.
 */
import { moveOnce } from '../files/move-once.js';
import type { CoordinatorLog } from '../protocol/coordinator-log.js';
import type { Txn } from './txn-machine.js';
import { listTxnFiles, loadTxnFiles, TXN_FILES } from './txn-files.js';
import { txnRecord } from './txn-log-records.js';

/** Written once the states are in the topic: from then on the old files are only to be removed. */
const TXN_MIGRATED_MARKER = 'transactions.migrated';

export interface MigrationReport {
  info(fields: object, message: string): void;
}

export async function migrateTxnFiles(dir: string, log: CoordinatorLog, report: MigrationReport): Promise<void> {
  await moveOnce(dir, {
    marker: TXN_MIGRATED_MARKER,
    async oldFiles() {
      const files = await listTxnFiles(dir);
      return [...files.snapshots.map((g) => TXN_FILES.snapshotName(g)), ...files.logs.map((g) => TXN_FILES.logName(g)), ...files.temporary];
    },
    async move() {
      const states = new Map<string, Txn>();
      await loadTxnFiles(dir, await listTxnFiles(dir), (change) => {
        if ('removed' in change) states.delete(change.transactionalId);
        else states.set(change.transactionalId, change);
      });
      await log.reset();
      for (const txn of states.values()) await log.append(log.partitionFor(txn.transactionalId), [txnRecord(txn)]);
      await log.sync();
      report.info({ dir, transactionalIds: states.size }, 'transaction states moved into __transaction_state');
    },
  });
}
