/**
 * TxnOffsetCommit: a consumer group's offsets committed in the producer's transaction, the
 * group's once it commits (dropped if it aborts). Partitions of unknown topics and oversized
 * metadata are refused one by one; the rest are checked against the group (a member or
 * generation named must be current, v3+) and the transaction, and taken together.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../../protocol/messages/txn-offset-commit.js';
import type { PendingOffset } from '../../transactions/txn-coordinator.js';
import { defineApi } from '../api-handler.js';
import { MAX_METADATA_LENGTH } from './offset-commit.js';

type PartitionResult = TxnOffsetCommitResponse['topics'][number]['partitions'][number];

export const txnOffsetCommit = defineApi({
  request: TxnOffsetCommitRequest,
  response: TxnOffsetCommitResponse,
  minVersion: 0,
  maxVersion: 4,
  async handle(request, _info, broker): Promise<TxnOffsetCommitResponse> {
    const offsets: PendingOffset[] = [];
    const checked: PartitionResult[] = [];
    const topics = request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const result: PartitionResult = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
        if (broker.storage.partition(t.name, p.partitionIndex) === undefined) result.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        else if ((p.committedMetadata?.length ?? 0) > MAX_METADATA_LENGTH) result.errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
        else {
          offsets.push({
            topic: t.name,
            partition: p.partitionIndex,
            offset: p.committedOffset,
            leaderEpoch: p.committedLeaderEpoch,
            metadata: p.committedMetadata ?? '',
          });
          checked.push(result);
        }
        return result;
      }),
    }));
    if (offsets.length > 0) {
      const { transactionalId, groupId, producerId, producerEpoch } = request;
      let errorCode = broker.groups.txnCommitError(groupId, request.generationId, request.memberId, request.groupInstanceId);
      if (errorCode === ErrorCode.NONE) errorCode = await broker.transactions.commitOffsets(transactionalId, producerId, producerEpoch, groupId, offsets);
      for (const result of checked) result.errorCode = errorCode;
    }
    return { throttleTimeMs: 0, topics };
  },
});
