/**
 * ListTransactions: the transactional ids the coordinator holds, filtered as Kafka's `TransactionStateManager.listTransactionStates` filters them
 * (by state, producer id, and from v1 by how long the transaction has been open); state filters
 * Kafka does not know come back as unknown. Only the ids the caller may DESCRIBE are listed, as
 * Kafka's `KafkaApis.handleListTransactionsRequest` lists them.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ListTransactionsRequest, ListTransactionsResponse } from '../../protocol/messages/list-transactions.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { mayDo } from '../access.js';
import { defineApi } from '../api-handler.js';

/** The states of Kafka's transaction coordinator. */
const STATES = new Set(['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence']);

export const listTransactions = defineApi({
  request: ListTransactionsRequest,
  response: ListTransactionsResponse,
  minVersion: 0,
  maxVersion: 1,
  handle(request, { connection }, broker): ListTransactionsResponse {
    const unknownStateFilters = [...new Set(request.stateFilters)].filter((state) => !STATES.has(state));
    const now = Date.now();
    const minDuration = Number(request.durationFilter);
    const transactionStates = [...broker.transactions.all()]
      .filter((t) => request.stateFilters.length === 0 || request.stateFilters.includes(t.state))
      .filter((t) => request.producerIdFilters.length === 0 || request.producerIdFilters.includes(t.producerId))
      .filter((t) => minDuration < 0 || (t.startMs >= 0 && now - t.startMs >= minDuration))
      .filter((t) => mayDo(connection, broker, ResourceType.TRANSACTIONAL_ID, t.transactionalId, AclOperation.DESCRIBE, true))
      .map((t) => ({ transactionalId: t.transactionalId, producerId: t.producerId, transactionState: t.state }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, unknownStateFilters, transactionStates };
  },
});
