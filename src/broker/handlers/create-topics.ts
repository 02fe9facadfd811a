/** CreateTopics: one replica on this broker; -1 partitions means num.partitions. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { CreateTopicsRequest, CreateTopicsResponse } from '../../protocol/messages/create-topics.js';
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import { TopicExistsError } from '../../log/storage.js';
import { defineApi } from '../api-handler.js';
import { topicNameProblem } from '../topic-names.js';

type Result = CreateTopicsResponse['topics'][number];

export const createTopics = defineApi({
  request: CreateTopicsRequest,
  response: CreateTopicsResponse,
  minVersion: 0,
  maxVersion: 7,
  async handle(request, _info, broker): Promise<CreateTopicsResponse> {
    const topics: Result[] = [];
    for (const t of request.topics) {
      const partitions = t.numPartitions === -1 ? broker.config.partitions : t.numPartitions;
      const fail = (errorCode: number, errorMessage: string): Result => ({
        name: t.name,
        topicId: ZERO_UUID,
        errorCode,
        errorMessage,
        numPartitions: -1,
        replicationFactor: -1,
        configs: null,
      });
      const nameProblem = topicNameProblem(t.name);
      if (nameProblem !== undefined) topics.push(fail(ErrorCode.INVALID_TOPIC_EXCEPTION, nameProblem));
      else if (broker.storage.topic(t.name) !== undefined) topics.push(fail(ErrorCode.TOPIC_ALREADY_EXISTS, `topic '${t.name}' already exists`));
      else if (t.assignments.length > 0) topics.push(fail(ErrorCode.INVALID_REQUEST, 'replica assignments are not supported by a single broker'));
      else if (partitions < 1) topics.push(fail(ErrorCode.INVALID_PARTITIONS, `number of partitions must be at least 1, not ${partitions}`));
      else if (t.replicationFactor !== -1 && t.replicationFactor !== 1) {
        topics.push(fail(ErrorCode.INVALID_REPLICATION_FACTOR, `replication factor ${t.replicationFactor} is larger than the 1 available broker`));
      } else {
        let topicId = ZERO_UUID;
        try {
          if (!request.validateOnly) topicId = (await broker.storage.createTopic(t.name, partitions)).topicId;
        } catch (err) {
          topics.push(err instanceof TopicExistsError ? fail(ErrorCode.TOPIC_ALREADY_EXISTS, err.message) : fail(ErrorCode.UNKNOWN_SERVER_ERROR, (err as Error).message));
          continue;
        }
        if (!request.validateOnly) broker.logger.info({ topic: t.name, partitions }, 'topic created');
        topics.push({ name: t.name, topicId, errorCode: ErrorCode.NONE, errorMessage: null, numPartitions: partitions, replicationFactor: 1, configs: [] });
      }
    }
    return { throttleTimeMs: 0, topics };
  },
});
