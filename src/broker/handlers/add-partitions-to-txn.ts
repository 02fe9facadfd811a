/**
 * AddPartitionsToTxn: brook has no transactions, and answers as Kafka does a client not allowed
 * to use the transactional id (as InitProducerId does): TRANSACTIONAL_ID_AUTHORIZATION_FAILED for
 * every partition of every transaction.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../../protocol/messages/add-partitions-to-txn.js';
import { defineApi } from '../api-handler.js';

type Topics = AddPartitionsToTxnRequest['v3AndBelowTopics'];

const refused = (topics: Topics): AddPartitionsToTxnResponse['resultsByTopicV3AndBelow'] =>
  topics.map((t) => ({
    name: t.name,
    resultsByPartition: t.partitions.map((partitionIndex) => ({ partitionIndex, partitionErrorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED })),
  }));

export const addPartitionsToTxn = defineApi({
  request: AddPartitionsToTxnRequest,
  response: AddPartitionsToTxnResponse,
  minVersion: 0,
  maxVersion: 5,
  handle(request): AddPartitionsToTxnResponse {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      // v4+ (sent by brokers) batch transactions; v3 and below carry one.
      resultsByTransaction: request.transactions.map((t) => ({ transactionalId: t.transactionalId, topicResults: refused(t.topics) })),
      resultsByTopicV3AndBelow: refused(request.v3AndBelowTopics),
    };
  },
});
