/** ListTransactions: there are none; state filters Kafka does not know come back as unknown, as Kafka answers them. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../../protocol/messages/list-transactions.js';
import { defineApi } from '../api-handler.js';

/** The states of Kafka's transaction coordinator. */
const STATES = new Set(['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence']);

export const listTransactions = defineApi({
  request: ListTransactionsRequest,
  response: ListTransactionsResponse,
  minVersion: 0,
  maxVersion: 1,
  handle(request): ListTransactionsResponse {
    const unknownStateFilters = [...new Set(request.stateFilters)].filter((state) => !STATES.has(state));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates: [] };
  },
});
