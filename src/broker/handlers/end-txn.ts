/**
 * EndTxn: commits or aborts the producer's transaction, answered once its markers are written
 * to every partition in it and, on commit, its offsets are the groups' (Kafka's `TransactionCoordinator.handleEndTransaction` answers once the
 * decision is stored and writes the markers after).
 */
import { EndTxnRequest, EndTxnResponse } from '../../protocol/messages/end-txn.js';
import { defineApi } from '../api-handler.js';
import { fencedError } from '../fenced-error.js';

/** EndTxn v2 answers PRODUCER_FENCED. */
const FENCED_SINCE = 2;

export const endTxn = defineApi({
  request: EndTxnRequest,
  response: EndTxnResponse,
  minVersion: 0,
  maxVersion: 4,
  async handle(request, info, broker): Promise<EndTxnResponse> {
    const errorCode = await broker.transactions.endTxn(request.transactionalId, request.producerId, request.producerEpoch, request.committed);
    return { throttleTimeMs: 0, errorCode: fencedError(errorCode, info.apiVersion, FENCED_SINCE), producerId: -1n, producerEpoch: -1 };
  },
});
