/** AddOffsetsToTxn: no transactions, so TRANSACTIONAL_ID_AUTHORIZATION_FAILED, as InitProducerId answers a transactional id. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../../protocol/messages/add-offsets-to-txn.js';
import { defineApi } from '../api-handler.js';

export const addOffsetsToTxn = defineApi({
  request: AddOffsetsToTxnRequest,
  response: AddOffsetsToTxnResponse,
  minVersion: 0,
  maxVersion: 4,
  handle(): AddOffsetsToTxnResponse {
    return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
  },
});
