/** DescribeTransactions: each transactional id's state as the coordinator holds it; an id never initialised is TRANSACTIONAL_ID_NOT_FOUND. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../../protocol/messages/describe-transactions.js';
import { defineApi } from '../api-handler.js';

export const describeTransactions = defineApi({
  request: DescribeTransactionsRequest,
  response: DescribeTransactionsResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request, _info, broker): DescribeTransactionsResponse {
    return {
      throttleTimeMs: 0,
      transactionStates: request.transactionalIds.map((transactionalId) => {
        const txn = broker.transactions.get(transactionalId);
        if (txn === undefined) {
          return {
            errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND,
            transactionalId,
            transactionState: '',
            transactionTimeoutMs: 0,
            transactionStartTimeMs: -1n,
            producerId: -1n,
            producerEpoch: -1,
            topics: [],
          };
        }
        const topics = new Map<string, number[]>();
        for (const p of txn.partitions) topics.set(p.topic, [...(topics.get(p.topic) ?? []), p.partition]);
        return {
          errorCode: ErrorCode.NONE,
          transactionalId,
          transactionState: txn.state,
          transactionTimeoutMs: txn.timeoutMs,
          transactionStartTimeMs: BigInt(txn.startMs),
          producerId: txn.producerId,
          producerEpoch: txn.epoch,
          topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
        };
      }),
    };
  },
});
