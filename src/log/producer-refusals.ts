/**
 * Kafka's refusal of each verdict of the producer decision that refuses a batch (Produce's append,
 * and AddPartitionsToTxn's verify-only question): the code alone, as Kafka's
 * `ReplicaManager` answers them (`LogAppendResult.errorMessage` is null for all but a few).
 */
import type { RefusalKind } from '../idempotence/producer-decision.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { refusal, type Refusal } from '../protocol/refusal.js';

/** A batch the log refuses, appending nothing: Kafka's refusal, and the producer decision's verdict when the decision refused it. */
export interface RefusedAppend extends Refusal {
  readonly kind: 'refused';
  readonly verdict: RefusalKind | undefined;
}

const refused = (verdict: RefusalKind, errorCode: number): RefusedAppend => ({ kind: 'refused', verdict, ...refusal(errorCode, null) });

const REFUSALS: Readonly<Record<RefusalKind, RefusedAppend>> = {
  out_of_order: refused('out_of_order', ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER),
  // As Kafka's ProducerAppendInfo.checkProducerEpoch since 2.7: INVALID_PRODUCER_EPOCH, which a producer may recover from, not PRODUCER_FENCED.
  fenced: refused('fenced', ErrorCode.INVALID_PRODUCER_EPOCH),
  invalid_txn_state: refused('invalid_txn_state', ErrorCode.INVALID_TXN_STATE),
  unknown_producer_id: refused('unknown_producer_id', ErrorCode.INVALID_PRODUCER_ID_MAPPING),
};

export function producerRefusal(verdict: RefusalKind): RefusedAppend {
  return REFUSALS[verdict];
}

/** A refusal of the log's own (a batch too large), as append answers it. */
export function refusedAppend(why: Refusal): RefusedAppend {
  return { kind: 'refused', verdict: undefined, ...why };
}
