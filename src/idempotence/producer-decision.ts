/**
 * The producer decision for one (partition, producer id): whether a batch about to be appended is
 * written, answered as a duplicate, or refused, and the producer's state on the partition after
 * it. Pure. It follows Kafka's ProducerAppendInfo, which UnifiedLog.append calls: the lesson's
 * epoch and window (rules.ts), the newest epoch InitProducerId handed out, and the producer's
 * transaction, both as the partition saw it (markers end it) and as its coordinator holds it.
 */
import { check, MAX_EPOCH, windowAfter, type ProducerState, type SequencedBatch } from './rules.js';

/** A producer's state on one partition: the lesson's epoch and window, and its open transaction there. */
export interface PartitionProducer extends ProducerState {
  /** The first offset of the producer's open transaction on the partition, -1 for none. */
  readonly txnStart: number;
}

/** A batch as the decision reads it: the lesson's numbers and what kind of batch it is. */
export interface ProducerBatch extends SequencedBatch {
  readonly transactional: boolean;
  /** A transaction marker (a control batch): it carries no sequence and ends the open transaction. */
  readonly marker: boolean;
}

/** The transaction coordinator's view of a transactional batch's producer. */
export interface CoordinatorView {
  /** The epoch of the coordinator's transaction for the producer id, -1 when the id has none. */
  readonly epoch: number;
  /** Whether the partition is in that transaction, and the transaction is open. */
  readonly partitionAdded: boolean;
}

/** What the broker knows of the producer beyond the partition, for a batch a client sent. */
export interface AppendContext {
  /** The newest epoch InitProducerId handed the producer id, -1 if none: older epochs are fenced on every partition. */
  readonly newestEpoch: number;
  /** For a transactional batch, its coordinator's view; undefined where no coordinator is asked. */
  readonly txn: CoordinatorView | undefined;
}

/** A batch asked about by no one beyond the partition: markers the coordinator writes, and the log's own tests. */
export const UNCHECKED: AppendContext = { newestEpoch: -1, txn: undefined };

/** Recovery's replay of batches already in the log: they were judged when appended, so only the state follows. */
export const REPLAY = 'replay';

/** Written at `baseOffset`, and the producer's state on the partition after it. */
export interface Accepted {
  readonly kind: 'append';
  readonly baseOffset: number;
  readonly next: PartitionProducer;
}

/** An exact replay of a remembered batch: nothing is written, the first copy's offset is answered. */
export interface Duplicate {
  readonly kind: 'duplicate';
  readonly baseOffset: number;
}

export type RefusalKind = 'out_of_order' | 'fenced' | 'invalid_txn_state' | 'unknown_producer_id';

export interface Refused {
  readonly kind: RefusalKind;
}

export type Decision = Accepted | Duplicate | Refused;

const FENCED: Refused = { kind: 'fenced' };
const INVALID_TXN_STATE: Refused = { kind: 'invalid_txn_state' };
const UNKNOWN_PRODUCER_ID: Refused = { kind: 'unknown_producer_id' };

/** Decides a batch about to be appended at `baseOffset`, given the producer's state on the partition before it. */
export function decide(state: PartitionProducer | undefined, batch: ProducerBatch, baseOffset: number, context: AppendContext | typeof REPLAY): Decision {
  if (context !== REPLAY) {
    const refused = refusal(state, batch, context);
    if (refused !== undefined) return refused;
  }
  return accepted(state, batch, baseOffset);
}

/**
 * What the coordinator refuses of a transactional batch of `epoch`, as Kafka's ReplicaManager
 * answers its transaction verification (AddPartitionsToTxnManager): also AddPartitionsToTxn's
 * verify-only answer.
 */
export function coordinatorRefusal(txn: CoordinatorView, epoch: number): Refused | undefined {
  if (txn.epoch < 0) return UNKNOWN_PRODUCER_ID;
  if (txn.epoch !== epoch) return FENCED;
  return txn.partitionAdded ? undefined : INVALID_TXN_STATE;
}

function refusal(state: PartitionProducer | undefined, batch: ProducerBatch, context: AppendContext): Duplicate | Refused | undefined {
  // As ProducerAppendInfo.appendEndTxnMarker: a marker only has to be of the producer's epoch or a newer one.
  if (batch.marker) return state !== undefined && batch.epoch < state.epoch ? FENCED : undefined;
  if (batch.transactional && context.txn !== undefined) {
    const refused = coordinatorRefusal(context.txn, batch.epoch);
    if (refused !== undefined) return refused;
  }
  if (batch.epoch < context.newestEpoch) return FENCED;
  const verdict = check(state, batch);
  if (verdict.kind !== 'append') return verdict;
  // As ProducerAppendInfo.appendDataBatch: a plain batch may not be tangled with the producer's open transaction.
  if (!batch.transactional && state !== undefined && state.txnStart >= 0) return INVALID_TXN_STATE;
  return undefined;
}

function accepted(state: PartitionProducer | undefined, batch: ProducerBatch, baseOffset: number): Accepted {
  if (batch.marker) {
    // A newer epoch starts a new numbering, as ProducerStateEntry.maybeUpdateProducerEpoch clears its batches.
    const window = state !== undefined && state.epoch === batch.epoch ? state.window : [];
    return { kind: 'append', baseOffset, next: { epoch: batch.epoch, window, txnStart: -1 } };
  }
  const open = state === undefined ? -1 : state.txnStart;
  const txnStart = batch.transactional && open < 0 ? baseOffset : open;
  return { kind: 'append', baseOffset, next: { epoch: batch.epoch, window: windowAfter(state, batch, baseOffset), txnStart } };
}

/** InitProducerId's answer to an idempotent producer naming its id and epoch (KIP-360). */
export type EpochBump =
  /** The next epoch, to be recorded as the newest before it is handed out. */
  | { readonly kind: 'bump'; readonly epoch: number }
  /** The bump just made, asked again (its answer was lost): the same epoch, nothing recorded. */
  | { readonly kind: 'again'; readonly epoch: number }
  /** An epoch that is neither the newest nor the one before the last bump. */
  | { readonly kind: 'fenced' }
  /** The id's epochs are used up: a new producer id. */
  | { readonly kind: 'new_id' };

/**
 * What InitProducerId hands a producer naming epoch `named`, given the newest epoch handed its id
 * (-1 if none): as Kafka's `TransactionCoordinator.handleInitProducerId` answers a retry naming the epoch before its last bump.
 */
export function epochBump(newest: number, named: number): EpochBump {
  if (newest >= 0 && named === newest - 1) return { kind: 'again', epoch: newest };
  if (newest >= 0 && named !== newest) return { kind: 'fenced' };
  return named < MAX_EPOCH ? { kind: 'bump', epoch: named + 1 } : { kind: 'new_id' };
}
