/** EndTxn: no transactions, so TRANSACTIONAL_ID_AUTHORIZATION_FAILED, as InitProducerId answers a transactional id. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { EndTxnRequest, EndTxnResponse } from '../../protocol/messages/end-txn.js';
import { defineApi } from '../api-handler.js';

export const endTxn = defineApi({
  request: EndTxnRequest,
  response: EndTxnResponse,
  minVersion: 0,
  maxVersion: 4,
  handle(): EndTxnResponse {
    return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1n, producerEpoch: -1 };
  },
});
