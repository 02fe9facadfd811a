/** The open transactions of a partition as the console names them: by the log's producer state, and the coordinator's transactional id. */
import type { BrokerContext } from '../broker/broker-context.js';
import type { PartitionLog } from '../log/partition-log.js';

export interface OpenTransaction {
  readonly producerId: string;
  /** The transactional id the coordinator holds for the producer, if it holds one. */
  readonly transactionalId: string | null;
  /** The offset of the transaction's first record on the partition. */
  readonly firstOffset: number;
}

/** The producer's open transaction on the partition, if it has one. */
export function openTransactionOf(broker: BrokerContext, log: PartitionLog, producerId: bigint): OpenTransaction | null {
  const firstOffset = log.openTxnStart(producerId);
  if (firstOffset === undefined) return null;
  return { producerId: String(producerId), transactionalId: transactionalIdOf(broker, producerId), firstOffset };
}

/** The open transaction the last stable offset stops at: null when it is the high watermark. */
export function transactionHoldingLso(broker: BrokerContext, log: PartitionLog): OpenTransaction | null {
  const lso = log.lastStableOffset;
  if (lso >= log.highWatermark) return null;
  for (const [producerId] of log.producers()) if (log.openTxnStart(producerId) === lso) return openTransactionOf(broker, log, producerId);
  return null;
}

function transactionalIdOf(broker: BrokerContext, producerId: bigint): string | null {
  for (const txn of broker.transactions.all()) if (txn.producerId === producerId) return txn.transactionalId;
  return null;
}
