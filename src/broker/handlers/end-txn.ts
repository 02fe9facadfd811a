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

/** Transactions v2 (KIP-890 part 2): from v5 each commit or abort bumps the epoch, and the answer names the producer's next id and epoch. */
const BUMPS_EPOCH_VERSION = 5;

export const endTxn = defineApi({
  request: EndTxnRequest,
  response: EndTxnResponse,
  minVersion: 0,
  maxVersion: 5,
  async handle(request, info, broker): Promise<EndTxnResponse> {
    const { transactionalId, producerId, producerEpoch, committed } = request;
    const answer = await broker.transactions.endTxn(transactionalId, producerId, producerEpoch, committed, info.apiVersion >= BUMPS_EPOCH_VERSION);
    return {
      throttleTimeMs: 0,
      errorCode: fencedError(answer.errorCode, info.apiVersion, FENCED_SINCE),
      producerId: answer.producerId,
      producerEpoch: answer.epoch,
    };
  },
});
