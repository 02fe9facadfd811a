/**
 * AddPartitionsToTxn: the partitions join the producer's transaction, beginning it if none is
 * open. Partitions of unknown topics are UNKNOWN_TOPIC_OR_PARTITION (of internal ones, a producer's TOPIC_AUTHORIZATION_FAILED) and the rest of the request
 * OPERATION_NOT_ATTEMPTED, as Kafka's `KafkaApis.handleAddPartitionsToTxnRequest` answers. v4+ (sent by brokers) batch transactions; a
 * verify-only one asks whether its partitions are in the transaction, changing nothing.
 */
import { producerRefusal } from '../../log/producer-refusals.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../../protocol/messages/add-partitions-to-txn.js';
import type { TxnPartition } from '../../transactions/txn-coordinator.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { fencedError } from '../fenced-error.js';
import { internalTopicRefusal } from '../internal-topic-refusals.js';

type Topics = AddPartitionsToTxnRequest['v3AndBelowTopics'];
type TopicResults = AddPartitionsToTxnResponse['resultsByTopicV3AndBelow'];

/** From v4, brokers send AddPartitionsToTxn, batching transactions. */
const BROKERS_SINCE = 4;

/** AddPartitionsToTxn v2 answers PRODUCER_FENCED. */
const FENCED_SINCE = 2;

const resultsOf = (topics: Topics, errorOf: (topic: string, partition: number) => number): TopicResults =>
  topics.map((t) => ({
    name: t.name,
    resultsByPartition: t.partitions.map((partitionIndex) => ({ partitionIndex, partitionErrorCode: errorOf(t.name, partitionIndex) })),
  }));

interface Adding {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly verifyOnly: boolean;
  readonly topics: Topics;
}

async function add(broker: BrokerContext, t: Adding, version: number): Promise<TopicResults> {
  // A producer's request (up to v3) may not add an internal topic's partition, checked before whether it exists.
  const refused = (topic: string, partition: number): number | undefined =>
    (version < BROKERS_SINCE ? internalTopicRefusal('addPartitionsToTxn', topic)?.errorCode : undefined) ??
    (broker.storage.partition(topic, partition) === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : undefined);
  if (t.topics.some((topic) => topic.partitions.some((p) => refused(topic.name, p) !== undefined))) {
    return resultsOf(t.topics, (topic, p) => refused(topic, p) ?? ErrorCode.OPERATION_NOT_ATTEMPTED);
  }
  const partitions: TxnPartition[] = t.topics.flatMap((topic) => topic.partitions.map((partition) => ({ topic: topic.name, partition })));
  if (t.verifyOnly)
    return resultsOf(t.topics, (topic, partition) => {
      const refused = broker.transactions.verify(t.transactionalId, t.producerId, t.producerEpoch, { topic, partition });
      return refused === undefined ? ErrorCode.NONE : producerRefusal(refused.kind).errorCode;
    });
  const errorCode = fencedError(await broker.transactions.addPartitions(t.transactionalId, t.producerId, t.producerEpoch, partitions), version, FENCED_SINCE);
  return resultsOf(t.topics, () => errorCode);
}

export const addPartitionsToTxn = defineApi({
  request: AddPartitionsToTxnRequest,
  response: AddPartitionsToTxnResponse,
  minVersion: 0,
  maxVersion: 5,
  async handle(request, info, broker): Promise<AddPartitionsToTxnResponse> {
    const version = info.apiVersion;
    if (version >= BROKERS_SINCE) {
      const resultsByTransaction = await Promise.all(
        request.transactions.map(async (t) => ({ transactionalId: t.transactionalId, topicResults: await add(broker, t, version) })),
      );
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction, resultsByTopicV3AndBelow: [] };
    }
    const single: Adding = {
      transactionalId: request.v3AndBelowTransactionalId,
      producerId: request.v3AndBelowProducerId,
      producerEpoch: request.v3AndBelowProducerEpoch,
      verifyOnly: false,
      topics: request.v3AndBelowTopics,
    };
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction: [], resultsByTopicV3AndBelow: await add(broker, single, version) };
  },
});
