/** Metadata: the live nodes, each partition's leader, replicas and ISR; unknown topics are created on request. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { MetadataRequest, MetadataResponse, type MetadataRequestTopic } from '../../protocol/messages/metadata.js';
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import { defineApi } from '../api-handler.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from '../../acl/acl-binding.js';
import { authorizedOperations, clusterOperations, mayDo, NOT_ASKED } from '../access.js';
import type { ConnectionContext } from '../../server/connection.js';
import { topicNameProblem } from '../../log/topic-name.js';
import { TopicCollisionError, TopicExistsError, type TopicInfo } from '../../log/storage.js';
import type { BrokerContext } from '../broker-context.js';
import { storageFailure } from '../storage-error.js';
import { ensureInternalTopic } from '../../log/internal-topics.js';
import { isInternalTopic } from '../../settings/internal-topics.js';

type ResponseTopic = MetadataResponse['topics'][number];

export const metadata = defineApi({
  request: MetadataRequest,
  response: MetadataResponse,
  minVersion: 0,
  // v13 (KIP-1102) adds the whole answer's error, which Kafka's broker sets only refusing the request (MetadataRequest.getErrorResponse).
  maxVersion: 13,
  async handle(request, info, broker) {
    // v0 asks for every topic with an empty list; later versions with null.
    const all = request.topics === null || (info.apiVersion === 0 && request.topics.length === 0);
    // A topic asked for twice is answered once, as Kafka's `KafkaApis.handleTopicMetadataRequest` answers a set of topics.
    const wanted = [...new Map((request.topics ?? []).map((w) => [w.name ?? w.topicId, w])).values()];
    let topics: ResponseTopic[] = [];
    // As Kafka's `KafkaApis.handleTopicMetadataRequest`: all topics are those the client may describe; one named that it may not is refused.
    if (all)
      topics = broker.storage
        .topics()
        .filter((t) => mayDescribe(info.connection, broker, t.name, true))
        .map((t) => describeTopic(broker, t));
    else if (info.apiVersion < 12 && wanted.some((w) => w.name === null || w.topicId !== ZERO_UUID)) topics = wanted.map(rejectedTopic);
    else for (const w of wanted) topics.push(await answerTopic(broker, info.connection, w, request.allowAutoTopicCreation));
    for (const t of topics)
      if (t.errorCode === ErrorCode.NONE)
        t.topicAuthorizedOperations = authorizedOperations(request.includeTopicAuthorizedOperations, info.connection, broker, ResourceType.TOPIC, t.name!);
    return {
      throttleTimeMs: 0,
      brokers: broker.cluster.brokers().map((b) => ({ ...b, rack: null })),
      clusterId: broker.clusterId,
      controllerId: broker.cluster.controller,
      topics,
      clusterAuthorizedOperations: clusterOperations(request.includeClusterAuthorizedOperations, info.connection, broker),
    };
  },
});

/** A topic by id is answered as found, never created; one by name may be created. */
async function answerTopic(
  broker: BrokerContext,
  connection: ConnectionContext,
  wanted: MetadataRequestTopic,
  allowAutoCreation: boolean,
): Promise<ResponseTopic> {
  if (wanted.name === null) {
    const byId = broker.storage.topicById(wanted.topicId);
    if (byId === undefined) return errorTopic(null, wanted.topicId, ErrorCode.UNKNOWN_TOPIC_ID);
    return mayDescribe(connection, broker, byId.name) ? describeTopic(broker, byId) : errorTopic(null, wanted.topicId, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  }
  // Refused whether it exists or not, so that a client learns nothing of topics it may not see.
  if (!mayDescribe(connection, broker, wanted.name)) return errorTopic(wanted.name, ZERO_UUID, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const topic = broker.storage.topic(wanted.name);
  if (topic !== undefined) return describeTopic(broker, topic);
  if (topicNameProblem(wanted.name) !== undefined) return errorTopic(wanted.name, ZERO_UUID, ErrorCode.INVALID_TOPIC_EXCEPTION);
  const internal = isInternalTopic(wanted.name);
  if (!broker.config.autoCreateTopics || !allowAutoCreation) return errorTopic(wanted.name, ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, internal);
  const mayCreate =
    mayDo(connection, broker, ResourceType.CLUSTER, CLUSTER_NAME, AclOperation.CREATE, true) ||
    mayDo(connection, broker, ResourceType.TOPIC, wanted.name, AclOperation.CREATE);
  if (!mayCreate) return errorTopic(wanted.name, ZERO_UUID, ErrorCode.TOPIC_AUTHORIZATION_FAILED, internal);
  return autoCreate(broker, wanted.name);
}

function mayDescribe(connection: ConnectionContext, broker: BrokerContext, topic: string, quiet = false): boolean {
  return mayDo(connection, broker, ResourceType.TOPIC, topic, AclOperation.DESCRIBE, quiet);
}

/**
 * Creates the topic (an internal one as its coordinator would, as Kafka's `AutoTopicCreationManager`
 * does); if a request on another connection created it first, answers that topic as it was then.
 */
async function autoCreate(broker: BrokerContext, name: string): Promise<ResponseTopic> {
  try {
    const topic = isInternalTopic(name)
      ? await ensureInternalTopic(broker.storage, name, broker.config)
      : await broker.storage.createTopic(name, broker.config.partitions);
    broker.logger.info({ topic: name, partitions: topic.partitions }, 'topic created on metadata request');
    return describeTopic(broker, topic);
  } catch (err) {
    if (err instanceof TopicExistsError) return describeTopic(broker, err.existing);
    if (err instanceof TopicCollisionError) return errorTopic(name, ZERO_UUID, ErrorCode.INVALID_TOPIC_EXCEPTION);
    return errorTopic(name, ZERO_UUID, storageFailure(broker.logger, err, { topic: name }, 'creating a topic on metadata request failed'));
  }
}

/**
 * Below v12 Kafka's `KafkaApis.handleTopicMetadataRequest` refuses a whole request naming a topic by id (or with a null name) and answers
 * every topic INVALID_REQUEST. The response's name is not nullable before v12, so a null name is
 * answered as "", as Kafka's MetadataRequest.getErrorResponse does.
 */
function rejectedTopic(wanted: MetadataRequestTopic): ResponseTopic {
  return errorTopic(wanted.name ?? '', wanted.topicId, ErrorCode.INVALID_REQUEST);
}

function describeTopic(broker: BrokerContext, topic: TopicInfo): ResponseTopic {
  return {
    errorCode: ErrorCode.NONE,
    name: topic.name,
    topicId: topic.topicId,
    isInternal: isInternalTopic(topic.name),
    partitions: Array.from({ length: topic.partitions }, (_, partitionIndex) => ({
      errorCode: ErrorCode.NONE,
      partitionIndex,
      ...broker.cluster.describe(topic, partitionIndex),
    })),
    topicAuthorizedOperations: NOT_ASKED,
  };
}

/** `isInternal` as Kafka's `KafkaApis.handleTopicMetadataRequest` sets it: by the name, for a topic the client may describe. */
function errorTopic(name: string | null, topicId: string, errorCode: number, isInternal = false): ResponseTopic {
  return { errorCode, name, topicId, isInternal, partitions: [], topicAuthorizedOperations: NOT_ASKED };
}
