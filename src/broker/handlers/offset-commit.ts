/**
 * OffsetCommit: partitions of unknown topics and oversized metadata are refused one by one;
 * the rest are checked against the group (member and generation) and stored together.
 */
import { OffsetCommitRequest, OffsetCommitResponse } from '../../protocol/messages/offset-commit.js';
import { defineApi } from '../api-handler.js';
import { offsetsAsked } from '../offsets-asked.js';

export const offsetCommit = defineApi({
  request: OffsetCommitRequest,
  response: OffsetCommitResponse,
  minVersion: 0,
  maxVersion: 9,
  async handle(request, info, broker): Promise<OffsetCommitResponse> {
    const { topics, offsets, pending } = offsetsAsked(broker, request.topics);
    if (offsets.length > 0) {
      const errorCode = await broker.groups.commitOffsets({
        groupId: request.groupId,
        generationId: request.generationIdOrMemberEpoch,
        memberId: request.memberId,
        groupInstanceId: request.groupInstanceId,
        offsets,
        apiVersion: info.apiVersion,
      });
      for (const result of pending) result.errorCode = errorCode;
    }
    return { throttleTimeMs: 0, topics };
  },
});
