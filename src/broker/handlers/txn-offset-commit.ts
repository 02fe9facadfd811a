/**
 * TxnOffsetCommit: a consumer group's offsets committed in the producer's transaction, the
 * group's once it commits (dropped if it aborts). Partitions of unknown topics and oversized
 * metadata are refused one by one; the rest are checked against the group (a member or
 * generation named must be current, v3+) and the transaction, and taken together.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../../protocol/messages/txn-offset-commit.js';
import { defineApi } from '../api-handler.js';
import { offsetsAsked } from '../offsets-asked.js';

/** Transactions v2 (KIP-890 part 2): TxnOffsetCommit v5 adds the group to the transaction itself, as AddOffsetsToTxn would. */
const ADDS_GROUP_VERSION = 5;

export const txnOffsetCommit = defineApi({
  request: TxnOffsetCommitRequest,
  response: TxnOffsetCommitResponse,
  minVersion: 0,
  maxVersion: 5,
  async handle(request, info, broker): Promise<TxnOffsetCommitResponse> {
    const { topics, offsets, pending } = offsetsAsked(broker, request.topics);
    if (offsets.length > 0) {
      const { transactionalId, groupId, producerId, producerEpoch } = request;
      let errorCode = broker.groups.txnCommitError(groupId, request.generationId, request.memberId, request.groupInstanceId);
      if (errorCode === ErrorCode.NONE)
        errorCode = await broker.transactions.commitOffsets(
          transactionalId,
          producerId,
          producerEpoch,
          groupId,
          offsets,
          info.apiVersion >= ADDS_GROUP_VERSION,
        );
      for (const result of pending) result.errorCode = errorCode;
    }
    return { throttleTimeMs: 0, topics };
  },
});
