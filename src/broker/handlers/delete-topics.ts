/** DeleteTopics: by name, or by topic id from v6. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../../protocol/messages/delete-topics.js';
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import { defineApi } from '../api-handler.js';

export const deleteTopics = defineApi({
  request: DeleteTopicsRequest,
  response: DeleteTopicsResponse,
  minVersion: 0,
  maxVersion: 6,
  async handle(request, info, broker): Promise<DeleteTopicsResponse> {
    const wanted = info.apiVersion >= 6 ? request.topics : request.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
    const responses: DeleteTopicsResponse['responses'] = [];
    for (const w of wanted) {
      const topic = w.name !== null ? broker.storage.topic(w.name) : broker.storage.topicById(w.topicId);
      if (topic === undefined) {
        const errorCode = w.name === null ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        responses.push({ name: w.name, topicId: w.topicId, errorCode, errorMessage: 'no such topic' });
        continue;
      }
      await broker.storage.deleteTopic(topic.name);
      broker.logger.info({ topic: topic.name }, 'topic deleted');
      responses.push({ name: topic.name, topicId: topic.topicId, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    return { throttleTimeMs: 0, responses };
  },
});
