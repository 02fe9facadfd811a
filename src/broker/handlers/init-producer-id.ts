/**
 * InitProducerId without a transactional id: a producer id never handed out before, epoch 0.
 * A producer that names its id and epoch (KIP-360, v3+) gets the same id with the next epoch,
 * which fences its own older in-flight batches.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../protocol/messages/init-producer-id.js';
import { defineApi } from '../api-handler.js';

const MAX_EPOCH = 32767;

export const initProducerId = defineApi({
  request: InitProducerIdRequest,
  response: InitProducerIdResponse,
  minVersion: 0,
  maxVersion: 4,
  async handle(request, _info, broker): Promise<InitProducerIdResponse> {
    if (request.transactionalId !== null) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1n, producerEpoch: -1 };
    }
    // Some clients send 0/0 instead of -1/-1 on their first call; id 0 is never handed out, so 0 means "none".
    const bump = request.producerId > 0n && request.producerEpoch >= 0 && request.producerEpoch < MAX_EPOCH;
    if (bump && broker.storage.producerIdIssued(request.producerId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: request.producerId, producerEpoch: request.producerEpoch + 1 };
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: await broker.storage.nextProducerId(), producerEpoch: 0 };
  },
});
