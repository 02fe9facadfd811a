/**
 * ElectLeaders, as Kafka's controller answers it (`ReplicationControlManager.electLeaders`): every partition is led by node 1, its preferred
 * (and only) replica, so neither a preferred nor an unclean election is needed. Asked for every
 * partition (a null list), the answer leaves out those that need none: each topic comes empty.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ElectLeadersRequest, ElectLeadersResponse } from '../../protocol/messages/elect-leaders.js';
import { defineApi } from '../api-handler.js';

/** Kafka's ElectionType values. */
const PREFERRED = 0;
const UNCLEAN = 1;

type PartitionResult = ElectLeadersResponse['replicaElectionResults'][number]['partitionResult'][number];

export const electLeaders = defineApi({
  request: ElectLeadersRequest,
  response: ElectLeadersResponse,
  minVersion: 0,
  maxVersion: 2,
  handle(request, _info, broker): ElectLeadersResponse {
    const answer = (errorCode: number, replicaElectionResults: ElectLeadersResponse['replicaElectionResults']): ElectLeadersResponse => ({
      throttleTimeMs: 0,
      errorCode,
      replicaElectionResults,
    });
    if (request.electionType !== PREFERRED && request.electionType !== UNCLEAN) {
      // As Kafka's `ReplicationControlManager.electLeaders`: the whole request fails, each partition named with the same error.
      const message = `Unknown election type ${request.electionType}`;
      return answer(
        ErrorCode.INVALID_REQUEST,
        (request.topicPartitions ?? []).map((t) => ({
          topic: t.topic,
          partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: message })),
        })),
      );
    }
    if (request.topicPartitions === null)
      return answer(
        ErrorCode.NONE,
        broker.storage.topics().map((t) => ({ topic: t.name, partitionResult: [] })),
      );
    return answer(
      ErrorCode.NONE,
      request.topicPartitions.map((t) => ({
        topic: t.topic,
        partitionResult: t.partitions.map((partitionId): PartitionResult => {
          const result = (errorCode: number, errorMessage: string | null = null): PartitionResult => ({ partitionId, errorCode, errorMessage });
          if (broker.storage.topic(t.topic) === undefined) return result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such topic as ${t.topic}`);
          if (broker.storage.partition(t.topic, partitionId) === undefined)
            return result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such partition as ${t.topic}-${partitionId}`);
          return result(ErrorCode.ELECTION_NOT_NEEDED);
        }),
      })),
    );
  },
});
