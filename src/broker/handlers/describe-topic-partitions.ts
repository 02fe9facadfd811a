/**
 * DescribeTopicPartitions (KIP-966): topics and their partitions by name order, every partition
 * led by node 1, at most a response limit of partitions (Kafka's max.request.partition.size.limit
 * caps it) with a cursor where the next page starts. With no topics named, all are described.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import { DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse } from '../../protocol/messages/describe-topic-partitions.js';
import { defineApi } from '../api-handler.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { authorizedOperations, mayDo, NOT_ASKED } from '../access.js';
import { topicNameProblem } from '../../log/topic-name.js';
import { isInternalTopic } from '../../settings/internal-topics.js';

/** max.request.partition.size.limit's default. */
const MAX_PARTITIONS = 2000;

type Topic = DescribeTopicPartitionsResponse['topics'][number];

export const describeTopicPartitions = defineApi({
  request: DescribeTopicPartitionsRequest,
  response: DescribeTopicPartitionsResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request, { connection }, broker): DescribeTopicPartitionsResponse {
    const { cursor } = request;
    const all = request.topics.length === 0;
    const from = cursor?.topicName ?? '';
    // As Kafka's `DescribeTopicPartitionsRequestHandler`: all topics are those the client may describe.
    const mayDescribe = (name: string, quiet = false): boolean => mayDo(connection, broker, ResourceType.TOPIC, name, AclOperation.DESCRIBE, quiet);
    const operations = (name: string): number => authorizedOperations(true, connection, broker, ResourceType.TOPIC, name);
    const listed = all ? broker.storage.topics().map((t) => t.name) : request.topics.map((t) => t.name);
    const names = new Set(listed.filter((name) => name >= from && (!all || mayDescribe(name, true))));
    // As Kafka's `DescribeTopicPartitionsRequestHandler`: a cursor outside the topics named, or before a first partition, fails every topic named.
    const invalidCursor = cursor !== null && ((!all && !names.has(cursor.topicName)) || cursor.partitionIndex < 0);
    if (invalidCursor)
      return { throttleTimeMs: 0, topics: request.topics.map((t) => topicError(t.name, ErrorCode.INVALID_REQUEST, NOT_ASKED)), nextCursor: null };
    let room = Math.max(Math.min(MAX_PARTITIONS, request.responsePartitionLimit), 1);
    const topics: Topic[] = [];
    let nextCursor: DescribeTopicPartitionsResponse['nextCursor'] = null;
    for (const name of [...names].sort()) {
      if (room === 0) {
        // The page is full at a topic's start: the next one begins there.
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      if (!mayDescribe(name)) {
        topics.push(topicError(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, NOT_ASKED));
        continue;
      }
      const info = broker.storage.topic(name);
      if (info === undefined) {
        // Asked for all, topics deleted meanwhile are left out; asked by name, they are errors.
        if (!all)
          topics.push(
            topicError(
              name,
              topicNameProblem(name) === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION,
              operations(name),
              isInternalTopic(name),
            ),
          );
        continue;
      }
      const first = name === cursor?.topicName ? cursor.partitionIndex : 0;
      const end = Math.min(info.partitions, first + room);
      const partitions = Array.from({ length: Math.max(end - first, 0) }, (_, i) => ({
        errorCode: ErrorCode.NONE,
        partitionIndex: first + i,
        ...broker.cluster.describe(info, first + i),
        eligibleLeaderReplicas: [],
        lastKnownElr: [],
      }));
      topics.push({
        errorCode: ErrorCode.NONE,
        name,
        topicId: info.topicId,
        isInternal: isInternalTopic(name),
        partitions,
        topicAuthorizedOperations: operations(name),
      });
      if (end < info.partitions) {
        nextCursor = { topicName: name, partitionIndex: end };
        break;
      }
      room -= partitions.length;
    }
    return { throttleTimeMs: 0, topics, nextCursor };
  },
});

/** Kafka's `KRaftMetadataCache` marks a topic asked for internal by its name, one refused for want of Describe not. */
function topicError(name: string, errorCode: number, topicAuthorizedOperations: number, isInternal = false): Topic {
  return { errorCode, name, topicId: ZERO_UUID, isInternal, partitions: [], topicAuthorizedOperations };
}
