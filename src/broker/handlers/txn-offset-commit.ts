/** TxnOffsetCommit: no transactions, so every partition is TRANSACTIONAL_ID_AUTHORIZATION_FAILED, as Kafka answers an unauthorized transactional id. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../../protocol/messages/txn-offset-commit.js';
import { defineApi } from '../api-handler.js';

export const txnOffsetCommit = defineApi({
  request: TxnOffsetCommitRequest,
  response: TxnOffsetCommitResponse,
  minVersion: 0,
  maxVersion: 4,
  handle(request): TxnOffsetCommitResponse {
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED })),
      })),
    };
  },
});
