/** Metadata: one broker, leader of every partition and controller; unknown topics are created on request. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { MetadataRequest, MetadataResponse } from '../../protocol/messages/metadata.js';
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import { defineApi } from '../api-handler.js';
import { LEADER_EPOCH, NODE_ID } from '../config.js';
import { topicNameProblem } from '../topic-names.js';
import { TopicExistsError, type TopicInfo } from '../../log/storage.js';
import type { BrokerContext } from '../broker-context.js';

type ResponseTopic = MetadataResponse['topics'][number];
const NO_OPERATIONS = -2147483648;

export const metadata = defineApi({
  request: MetadataRequest,
  response: MetadataResponse,
  minVersion: 0,
  maxVersion: 12,
  async handle(request, info, broker) {
    const { storage, config } = broker;
    // v0 asks for every topic with an empty list; later versions with null.
    const all = request.topics === null || (info.apiVersion === 0 && request.topics.length === 0);
    const topics: ResponseTopic[] = [];
    if (all) {
      for (const topic of storage.topics()) topics.push(describeTopic(topic));
    } else {
      for (const wanted of request.topics ?? []) {
        const byId = wanted.name === null ? storage.topicById(wanted.topicId) : undefined;
        const name = wanted.name ?? byId?.name;
        if (name === undefined) {
          topics.push(errorTopic(null, wanted.topicId, ErrorCode.UNKNOWN_TOPIC_ID));
          continue;
        }
        let topic = storage.topic(name);
        if (topic === undefined) {
          if (topicNameProblem(name) !== undefined) {
            topics.push(errorTopic(name, ZERO_UUID, ErrorCode.INVALID_TOPIC_EXCEPTION));
            continue;
          }
          if (!config.autoCreateTopics || !request.allowAutoTopicCreation) {
            topics.push(errorTopic(name, ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
            continue;
          }
          topic = await createOrFind(broker, name);
        }
        topics.push(describeTopic(topic));
      }
    }
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: NODE_ID, host: broker.advertised.host, port: broker.advertised.port, rack: null }],
      clusterId: broker.clusterId,
      controllerId: NODE_ID,
      topics,
      clusterAuthorizedOperations: NO_OPERATIONS,
    };
  },
});

/** Creates the topic, or finds it when a request on another connection created it meanwhile. */
async function createOrFind(broker: BrokerContext, name: string): Promise<TopicInfo> {
  try {
    const topic = await broker.storage.createTopic(name, broker.config.partitions);
    broker.logger.info({ topic: name, partitions: broker.config.partitions }, 'topic created on metadata request');
    return topic;
  } catch (err) {
    const existing = broker.storage.topic(name);
    if (err instanceof TopicExistsError && existing !== undefined) return existing;
    throw err;
  }
}

function describeTopic(topic: TopicInfo): ResponseTopic {
  return {
    errorCode: ErrorCode.NONE,
    name: topic.name,
    topicId: topic.topicId,
    isInternal: false,
    partitions: Array.from({ length: topic.partitions }, (_, partitionIndex) => ({
      errorCode: ErrorCode.NONE,
      partitionIndex,
      leaderId: NODE_ID,
      leaderEpoch: LEADER_EPOCH,
      replicaNodes: [NODE_ID],
      isrNodes: [NODE_ID],
      offlineReplicas: [],
    })),
    topicAuthorizedOperations: NO_OPERATIONS,
  };
}

function errorTopic(name: string | null, topicId: string, errorCode: number): ResponseTopic {
  return { errorCode, name, topicId, isInternal: false, partitions: [], topicAuthorizedOperations: NO_OPERATIONS };
}
