/**
 * Every transactional id's state, held in memory and kept in `__transaction_state` as Kafka's
 * `TransactionStateManager` keeps it: each change appended as the id's whole state
 * (txn-log-records.ts) to the id's partition, the last record of an id winning, and compacted by
 * the log cleaner. A state is stored (in the page cache, or under `--flush always` on disk) before
 * it is taken: the coordinator acts on nothing it could forget. An expired id's removal is a
 * tombstone, as Kafka's is (`TransactionStateManager.removeExpiredTransactionalIds`), so that it
 * stays forgotten across a restart.
 */
import { readDecoded, type CoordinatorLog } from '../protocol/coordinator-log.js';
import type { Txn } from './txn-machine.js';
import { migrateTxnFiles } from './txn-migration.js';
import { readTxnRecord, txnRecord, txnTombstone } from './txn-log-records.js';

export interface TxnStoreLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export class TxnStore {
  private constructor(
    private readonly byId: Map<string, Txn>,
    private readonly log: CoordinatorLog,
  ) {}

  /**
   * The states held in the topic, once the files of an earlier brook in `dir` are moved into it.
   * A record that does not decode is passed over, and said so.
   */
  static async open(dir: string, log: CoordinatorLog, report: TxnStoreLog): Promise<TxnStore> {
    await migrateTxnFiles(dir, log, report);
    const byId = new Map<string, Txn>();
    const undecodable = await readDecoded(log, readTxnRecord, (change) => {
      if ('removed' in change) byId.delete(change.transactionalId);
      else byId.set(change.transactionalId, change);
    });
    if (undecodable > 0) report.warn({ records: undecodable }, 'records of the transaction state topic that are not transaction states passed over');
    return new TxnStore(byId, log);
  }

  get(transactionalId: string): Txn | undefined {
    return this.byId.get(transactionalId);
  }

  all(): IterableIterator<Txn> {
    return this.byId.values();
  }

  /** Stores `txn` as its id's state; it is taken once the promise resolves. */
  async put(txn: Txn): Promise<void> {
    await this.log.append(this.log.partitionFor(txn.transactionalId), [txnRecord(txn)]);
    this.byId.set(txn.transactionalId, txn);
  }

  /** Forgets the id, durably: its tombstone is appended, and the cleaner drops its records. */
  async remove(transactionalId: string): Promise<void> {
    await this.log.append(this.log.partitionFor(transactionalId), [txnTombstone(transactionalId)]);
    this.byId.delete(transactionalId);
  }
}
