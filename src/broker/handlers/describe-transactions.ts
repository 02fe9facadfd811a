/**
 * DescribeTransactions: each transactional id's state as the coordinator holds it; an id never
 * initialised is TRANSACTIONAL_ID_NOT_FOUND. As Kafka's KafkaApis: an id the caller may not
 * DESCRIBE is TRANSACTIONAL_ID_AUTHORIZATION_FAILED, and only the partitions of topics it may
 * DESCRIBE are listed.
 */
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../../protocol/messages/describe-transactions.js';
import { mayDo } from '../access.js';
import { defineApi } from '../api-handler.js';

type TransactionState = DescribeTransactionsResponse['transactionStates'][number];

const withoutState = (transactionalId: string, errorCode: number): TransactionState => ({
  errorCode,
  transactionalId,
  transactionState: '',
  transactionTimeoutMs: 0,
  transactionStartTimeMs: -1n,
  producerId: -1n,
  producerEpoch: -1,
  topics: [],
});

export const describeTransactions = defineApi({
  request: DescribeTransactionsRequest,
  response: DescribeTransactionsResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request, { connection }, broker): DescribeTransactionsResponse {
    return {
      throttleTimeMs: 0,
      transactionStates: request.transactionalIds.map((transactionalId) => {
        if (!mayDo(connection, broker, ResourceType.TRANSACTIONAL_ID, transactionalId, AclOperation.DESCRIBE)) {
          return withoutState(transactionalId, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        }
        const txn = broker.transactions.get(transactionalId);
        if (txn === undefined) return withoutState(transactionalId, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
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
          topics: [...topics]
            .filter(([topic]) => mayDo(connection, broker, ResourceType.TOPIC, topic, AclOperation.DESCRIBE, true))
            .map(([topic, partitions]) => ({ topic, partitions })),
        };
      }),
    };
  },
});
