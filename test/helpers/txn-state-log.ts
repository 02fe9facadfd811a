/** `__transaction_state` over a real Storage in `dir`, as startBroker gives it to the transaction coordinator. */
import { Partitions } from '../../src/broker/partition.js';
import { ProducerActivity } from '../../src/broker/producer-activity.js';
import { txnStateLog } from '../../src/broker/txn-state-log.js';
import { Storage } from '../../src/log/storage.js';
import type { CoordinatorLog } from '../../src/protocol/coordinator-log.js';
import type { Txn } from '../../src/transactions/txn-machine.js';
import { txnRecord } from '../../src/transactions/txn-log-records.js';
import { DEFAULT_CONFIG } from '../../src/settings/settings.js';

export interface OpenTxnStateLog {
  readonly log: CoordinatorLog;
  readonly storage: Storage;
  close(): Promise<void>;
}

export async function openTxnStateLog(
  dir: string,
  { transactionStateLogNumPartitions = DEFAULT_CONFIG.transactionStateLogNumPartitions } = {},
): Promise<OpenTxnStateLog> {
  const storage = await Storage.open(dir, { flush: 'none' });
  const partitions = new Partitions(storage, new ProducerActivity(), () => {});
  const log = txnStateLog(partitions, { ...DEFAULT_CONFIG, transactionStateLogNumPartitions }, () => 0);
  return { log, storage, close: () => storage.close() };
}

/** Appends `txn` as its id's state in a stopped broker's data directory, as the coordinator would have stored it. */
export async function storeTxnState(dir: string, txn: Txn): Promise<void> {
  const opened = await openTxnStateLog(dir);
  try {
    await opened.log.append(opened.log.partitionFor(txn.transactionalId), [txnRecord(txn)]);
    await opened.log.sync();
  } finally {
    await opened.close();
  }
}
