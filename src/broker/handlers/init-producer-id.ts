/**
 * InitProducerId. With a transactional id, the transaction coordinator's (KIP-98): the id's
 * producer id with its next epoch, fencing the previous one, after aborting a transaction it
 * left open. Without one: a producer id never handed out before, epoch 0; a producer that names
 * its id and current epoch (KIP-360, v3+) gets the same id with the next epoch, which fences its
 * older in-flight batches on every partition; naming an epoch that is neither the current one nor
 * the one before the last bump is INVALID_PRODUCER_EPOCH. With --producer-ids-per-hour, a
 * principal past its new ids for the hour is answered THROTTLING_QUOTA_EXCEEDED, with the wait.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../protocol/messages/init-producer-id.js';
import { epochBump } from '../../idempotence/producer-decision.js';
import { defineApi } from '../api-handler.js';
import { fencedError } from '../fenced-error.js';
import { aclPrincipal, principalOf } from '../principal.js';

/** InitProducerId v4 answers PRODUCER_FENCED. */
const FENCED_SINCE = 4;

export const initProducerId = defineApi({
  request: InitProducerIdRequest,
  response: InitProducerIdResponse,
  minVersion: 0,
  // v5 only says the client knows TRANSACTION_ABORTABLE (KIP-890), which Kafka's InitProducerId never answers.
  maxVersion: 5,
  async handle(request, info, broker): Promise<InitProducerIdResponse> {
    const answer = (errorCode: number, producerId: bigint, producerEpoch: number, throttleTimeMs = 0): InitProducerIdResponse => ({
      throttleTimeMs,
      errorCode,
      producerId,
      producerEpoch,
    });
    const { transactionalId, producerId, producerEpoch } = request;
    if (transactionalId === '') return answer(ErrorCode.INVALID_REQUEST, -1n, -1);
    if (transactionalId !== null) {
      const init = await broker.transactions.initProducerId({ transactionalId, timeoutMs: request.transactionTimeoutMs, producerId, epoch: producerEpoch });
      return answer(fencedError(init.errorCode, info.apiVersion, FENCED_SINCE), init.producerId, init.epoch);
    }
    // Some clients send 0/0 instead of -1/-1 on their first call; id 0 is never handed out, so 0 means "none".
    if (producerId > 0n && producerEpoch >= 0 && broker.storage.producerIdIssued(producerId)) {
      const bump = epochBump(broker.producerEpochs.current(producerId) ?? -1, producerEpoch);
      if (bump.kind === 'again') return answer(ErrorCode.NONE, producerId, bump.epoch);
      if (bump.kind === 'fenced') return answer(ErrorCode.INVALID_PRODUCER_EPOCH, -1n, -1);
      if (bump.kind === 'bump') {
        await broker.producerEpochs.record(producerId, bump.epoch, Date.now());
        return answer(ErrorCode.NONE, producerId, bump.epoch);
      }
    }
    const waitMs = broker.producerIdQuota?.take(aclPrincipal(principalOf(info.connection, broker)), Date.now()) ?? 0;
    if (waitMs > 0) return answer(ErrorCode.THROTTLING_QUOTA_EXCEEDED, -1n, -1, waitMs);
    return answer(ErrorCode.NONE, await broker.storage.nextProducerId(), 0);
  },
});
