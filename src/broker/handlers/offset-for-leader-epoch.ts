/**
 * OffsetForLeaderEpoch: where a leader epoch ended, for a client checking its position after a
 * leader change (KIP-320). The current epoch ends at the high watermark, the log end readers see.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../../protocol/messages/offset-for-leader-epoch.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';
import { leaderEpochError } from '../config.js';

export const offsetForLeaderEpoch = defineApi({
  request: OffsetForLeaderEpochRequest,
  response: OffsetForLeaderEpochResponse,
  minVersion: 0,
  maxVersion: 4,
  handle(request, { connection }, broker): OffsetForLeaderEpochResponse {
    const topics = request.topics.map((t) => {
      const allowed = mayDo(connection, broker, ResourceType.TOPIC, t.topic, AclOperation.DESCRIBE);
      return {
        topic: t.topic,
        partitions: t.partitions.map((p) => {
          const answer = (errorCode: number, leaderEpoch = -1, endOffset = -1) => ({
            errorCode,
            partition: p.partition,
            leaderEpoch,
            endOffset: BigInt(endOffset),
          });
          if (!allowed) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          const log = broker.storage.partition(t.topic, p.partition);
          if (log === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          const leadership = broker.cluster.partition(t.topic, p.partition)!;
          const fenced = leaderEpochError(p.currentLeaderEpoch, leadership.epoch);
          if (fenced !== ErrorCode.NONE) return answer(fenced);
          const { leaderEpoch, endOffset } = broker.cluster.epochEnd(leadership, p.leaderEpoch, log.logStartOffset, log.highWatermark);
          return answer(ErrorCode.NONE, leaderEpoch, endOffset);
        }),
      };
    });
    return { throttleTimeMs: 0, topics };
  },
});
