/** DescribeTransactions: no transactions, so each id is TRANSACTIONAL_ID_AUTHORIZATION_FAILED, as InitProducerId answers a transactional id. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../../protocol/messages/describe-transactions.js';
import { defineApi } from '../api-handler.js';

export const describeTransactions = defineApi({
  request: DescribeTransactionsRequest,
  response: DescribeTransactionsResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request): DescribeTransactionsResponse {
    return {
      throttleTimeMs: 0,
      transactionStates: request.transactionalIds.map((transactionalId) => ({
        errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
        transactionalId,
        transactionState: '',
        transactionTimeoutMs: 0,
        transactionStartTimeMs: 0n,
        producerId: 0n,
        producerEpoch: 0,
        topics: [],
      })),
    };
  },
});
