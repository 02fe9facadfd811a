/** OffsetFetch: committed offsets (-1 where none), of the partitions asked for or, given null, of all. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../../protocol/messages/offset-fetch.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';

interface WantedTopic {
  readonly name: string;
  readonly partitionIndexes: readonly number[];
}

export const offsetFetch = defineApi({
  request: OffsetFetchRequest,
  response: OffsetFetchResponse,
  minVersion: 0,
  maxVersion: 9,
  handle(request, info, broker): OffsetFetchResponse {
    // v8 asks for several groups at once.
    if (info.apiVersion >= 8) {
      const groups = request.groups.map((g) => ({ groupId: g.groupId, topics: committed(broker, g.groupId, g.topics), errorCode: ErrorCode.NONE }));
      return { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.NONE, groups };
    }
    return { throttleTimeMs: 0, topics: committed(broker, request.groupId, request.topics), errorCode: ErrorCode.NONE, groups: [] };
  },
});

function committed(broker: BrokerContext, groupId: string, wanted: readonly WantedTopic[] | null) {
  const offsets = broker.groups.committedOffsets(groupId);
  const topics = wanted ?? [...(offsets ?? [])].map(([name, partitions]) => ({ name, partitionIndexes: [...partitions.keys()] }));
  return topics.map((t) => ({
    name: t.name,
    partitions: t.partitionIndexes.map((partitionIndex) => {
      const c = offsets?.get(t.name)?.get(partitionIndex);
      return {
        partitionIndex,
        committedOffset: c?.offset ?? -1n,
        committedLeaderEpoch: c?.leaderEpoch ?? -1,
        metadata: c?.metadata ?? '',
        errorCode: ErrorCode.NONE,
      };
    }),
  }));
}
