/** ListPartitionReassignments: with one broker no partition is ever being reassigned. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse } from '../../protocol/messages/list-partition-reassignments.js';
import { defineApi } from '../api-handler.js';

export const listPartitionReassignments = defineApi({
  request: ListPartitionReassignmentsRequest,
  response: ListPartitionReassignmentsResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(): ListPartitionReassignmentsResponse {
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [] };
  },
});
