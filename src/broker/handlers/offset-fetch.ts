/**
 * OffsetFetch: committed offsets (-1 where none), of the partitions asked for or, given null, of all.
 * As Kafka's `KafkaApis.handleOffsetFetchRequest`: a group the client may not describe is GROUP_AUTHORIZATION_FAILED; a topic it may not
 * describe is TOPIC_AUTHORIZATION_FAILED when asked for, and left out of all.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { OffsetFetchRequest, OffsetFetchResponse } from '../../protocol/messages/offset-fetch.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import type { ConnectionContext } from '../../server/connection.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';
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
      const groups = request.groups.map((g) => {
        const answer = committed(broker, info.connection, g.groupId, g.topics);
        // v9 names the member asking: in a consumer group it must be there, at its epoch.
        const errorCode = answer.errorCode === ErrorCode.NONE ? broker.groups.fetchError(g.groupId, g.memberId, g.memberEpoch) : answer.errorCode;
        return errorCode === ErrorCode.NONE ? { groupId: g.groupId, ...answer } : { groupId: g.groupId, errorCode, topics: [] };
      });
      return { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.NONE, groups };
    }
    const answer = committed(broker, info.connection, request.groupId, request.topics);
    // v0 and v1 have no error of the request's own: each partition asked for carries it.
    if (info.apiVersion < 2 && answer.errorCode !== ErrorCode.NONE)
      return { throttleTimeMs: 0, topics: errorTopics(request.topics, answer.errorCode), errorCode: 0, groups: [] };
    return { throttleTimeMs: 0, ...answer, groups: [] };
  },
});

function committed(broker: BrokerContext, connection: ConnectionContext, groupId: string, wanted: readonly WantedTopic[] | null) {
  if (!mayDo(connection, broker, ResourceType.GROUP, groupId, AclOperation.DESCRIBE)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
  const mayDescribe = (topic: string, quiet: boolean): boolean => mayDo(connection, broker, ResourceType.TOPIC, topic, AclOperation.DESCRIBE, quiet);
  const offsets = broker.groups.committedOffsets(groupId);
  const all = [...(offsets ?? [])].map(([name, partitions]) => ({ name, partitionIndexes: [...partitions.keys()] })).filter((t) => mayDescribe(t.name, true));
  const refused = (wanted ?? []).filter((t) => !mayDescribe(t.name, false));
  const topics = wanted?.filter((t) => !refused.includes(t)) ?? all;
  return { errorCode: ErrorCode.NONE, topics: [...offsetsOf(offsets, topics), ...errorTopics(refused, ErrorCode.TOPIC_AUTHORIZATION_FAILED)] };
}

function offsetsOf(offsets: ReturnType<BrokerContext['groups']['committedOffsets']>, topics: readonly WantedTopic[]) {
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

function errorTopics(topics: readonly WantedTopic[] | null, errorCode: number) {
  return (topics ?? []).map((t) => ({
    name: t.name,
    partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode })),
  }));
}
