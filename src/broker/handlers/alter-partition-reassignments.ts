/**
 * AlterPartitionReassignments, as Kafka's controller (`ReplicationControlManager.alterPartitionReassignments`) answers it where node 1 is the only broker:
 * reassigning a partition to [1], where it is, changes nothing; other brokers are not registered
 * (INVALID_REPLICA_ASSIGNMENT); cancelling finds no reassignment in progress.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from '../../protocol/messages/alter-partition-reassignments.js';
import { defineApi } from '../api-handler.js';
import { reassignmentProblem } from '../replica-assignments.js';

export const alterPartitionReassignments = defineApi({
  request: AlterPartitionReassignmentsRequest,
  response: AlterPartitionReassignmentsResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request, _info, broker): AlterPartitionReassignmentsResponse {
    const responses = request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map(({ partitionIndex, replicas }) => {
        const answer = (errorCode: number, errorMessage: string | null = null) => ({ partitionIndex, errorCode, errorMessage });
        if (broker.storage.topic(t.name) === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find a topic named ${t.name}.`);
        if (broker.storage.partition(t.name, partitionIndex) === undefined) {
          return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find partition ${t.name}:${partitionIndex}.`);
        }
        if (replicas === null) return answer(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, 'No partition reassignment is in progress.');
        const problem = reassignmentProblem(replicas);
        return problem === undefined ? answer(ErrorCode.NONE) : answer(ErrorCode.INVALID_REPLICA_ASSIGNMENT, problem);
      }),
    }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
});
