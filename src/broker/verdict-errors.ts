/** The Kafka error each refusal of the producer decision is answered with (Produce, and AddPartitionsToTxn's verify-only question). */
import type { RefusalKind } from '../idempotence/producer-decision.js';
import { ErrorCode } from '../protocol/error-codes.js';

export const VERDICT_ERRORS: Readonly<Record<RefusalKind, number>> = {
  out_of_order: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
  // As Kafka's ProducerAppendInfo.checkProducerEpoch since 2.7: INVALID_PRODUCER_EPOCH, which a producer may recover from, not PRODUCER_FENCED.
  fenced: ErrorCode.INVALID_PRODUCER_EPOCH,
  invalid_txn_state: ErrorCode.INVALID_TXN_STATE,
  unknown_producer_id: ErrorCode.INVALID_PRODUCER_ID_MAPPING,
};
