/** AddOffsetsToTxn: the group joins the producer's transaction, so TxnOffsetCommit may commit its offsets in it. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../../protocol/messages/add-offsets-to-txn.js';
import { defineApi } from '../api-handler.js';
import { fencedError } from '../fenced-error.js';

/** AddOffsetsToTxn v2 answers PRODUCER_FENCED. */
const FENCED_SINCE = 2;

export const addOffsetsToTxn = defineApi({
  request: AddOffsetsToTxnRequest,
  response: AddOffsetsToTxnResponse,
  minVersion: 0,
  maxVersion: 4,
  async handle(request, info, broker): Promise<AddOffsetsToTxnResponse> {
    const { transactionalId, producerId, producerEpoch, groupId } = request;
    if (groupId === '') return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_GROUP_ID };
    const errorCode = await broker.transactions.addOffsets(transactionalId, producerId, producerEpoch, groupId);
    return { throttleTimeMs: 0, errorCode: fencedError(errorCode, info.apiVersion, FENCED_SINCE) };
  },
});
