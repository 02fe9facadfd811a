/** OffsetCommit as an admin tool sends it: no generation or member, one offset for each partition named of one topic. */
import type { OffsetCommitRequest } from '../../src/protocol/messages/offset-commit.js';

export function adminCommit(
  groupId: string,
  topic: string,
  partitions: readonly number[],
  offset: bigint,
  metadata: string | null = null,
): OffsetCommitRequest {
  return {
    groupId,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [
      {
        name: topic,
        partitions: partitions.map((partitionIndex) => ({
          partitionIndex,
          committedOffset: offset,
          committedLeaderEpoch: -1,
          commitTimestamp: -1n,
          committedMetadata: metadata,
        })),
      },
    ],
  };
}
