/**
 * OffsetCommit: partitions of unknown topics and oversized metadata are refused one by one;
 * the rest are checked against the group (member and generation) and stored together.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { OffsetCommitRequest, OffsetCommitResponse } from '../../protocol/messages/offset-commit.js';
import type { PartitionOffset } from '../../groups/offset-store.js';
import { defineApi } from '../api-handler.js';

type PartitionResult = OffsetCommitResponse['topics'][number]['partitions'][number];

/** offset.metadata.max.bytes */
export const MAX_METADATA_LENGTH = 4096;

export const offsetCommit = defineApi({
  request: OffsetCommitRequest,
  response: OffsetCommitResponse,
  minVersion: 0,
  maxVersion: 9,
  async handle(request, info, broker): Promise<OffsetCommitResponse> {
    const offsets: PartitionOffset[] = [];
    const groupChecked: PartitionResult[] = [];
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
          groupChecked.push(result);
        }
        return result;
      }),
    }));
    if (offsets.length > 0) {
      const errorCode = await broker.groups.commitOffsets({
        groupId: request.groupId,
        generationId: request.generationIdOrMemberEpoch,
        memberId: request.memberId,
        groupInstanceId: request.groupInstanceId,
        offsets,
        apiVersion: info.apiVersion,
      });
      for (const result of groupChecked) result.errorCode = errorCode;
    }
    return { throttleTimeMs: 0, topics };
  },
});
