/**
 * DeleteTopics: by name, or by topic id from v6 (not both); every group's committed offsets there
 * go too. A topic named twice in one request is INVALID_REQUEST and not deleted, as in Kafka.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../../protocol/messages/delete-topics.js';
import { ZERO_UUID } from '../../protocol/primitives/reader.js';
import type { TopicInfo } from '../../log/storage.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import type { ConnectionContext } from '../../server/connection.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';
import type { BrokerContext } from '../broker-context.js';
import { answerEachNamedOnce } from '../named-once.js';
import { internalTopicRefusal } from '../internal-topic-refusals.js';
import { storageFailure } from '../storage-error.js';

type Wanted = DeleteTopicsRequest['topics'][number];
type Result = DeleteTopicsResponse['responses'][number];

export const deleteTopics = defineApi({
  request: DeleteTopicsRequest,
  response: DeleteTopicsResponse,
  minVersion: 0,
  maxVersion: 6,
  async handle(request, info, broker): Promise<DeleteTopicsResponse> {
    const wanted = info.apiVersion >= 6 ? request.topics : request.topicNames.map((name) => ({ name, topicId: ZERO_UUID }));
    const responses = await answerEachNamedOnce(
      wanted,
      keyOf,
      async (w) => {
        if (w.name !== null && w.topicId !== ZERO_UUID) return refused(w, 'You may not specify both topic name and topic id.');
        if (w.name === null && w.topicId === ZERO_UUID) return refused(w, 'Neither topic name nor id were specified.');
        return deleteOne(broker, info.connection, w);
      },
      (w) => refused(w, w.name === null ? 'Duplicate topic id.' : 'Duplicate topic name.'),
    );
    return { throttleTimeMs: 0, responses };
  },
});

/** What names the topic: its name, or its id when the name is null; nothing when it gives both or neither. */
function keyOf(w: Wanted): string | undefined {
  if ((w.name === null) === (w.topicId === ZERO_UUID)) return undefined;
  return w.name === null ? `id:${w.topicId}` : `name:${w.name}`;
}

function refused(w: Wanted, errorMessage: string): Result {
  return { name: w.name, topicId: w.topicId, errorCode: ErrorCode.INVALID_REQUEST, errorMessage };
}

/**
 * The topic is looked for again when the delete's turn comes, since an earlier change (another
 * connection's delete of it) may have removed it: then it is answered as unknown, as Kafka's `ControllerApis.deleteTopics` does.
 */
async function deleteOne(broker: BrokerContext, connection: ConnectionContext, w: Wanted): Promise<Result> {
  const byId = w.name === null ? broker.storage.topicById(w.topicId) : undefined;
  const name = w.name ?? byId?.name;
  if (name !== undefined && !mayDo(connection, broker, ResourceType.TOPIC, name, AclOperation.DELETE)) {
    return { name: w.name, topicId: w.topicId, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: 'Authorization failed.' };
  }
  const internal = name === undefined ? undefined : internalTopicRefusal('deleteTopics', name);
  if (internal !== undefined) return { name: w.name, topicId: w.topicId, errorCode: internal.errorCode, errorMessage: internal.message };
  let deleted: TopicInfo | undefined;
  try {
    deleted = name === undefined ? undefined : await broker.storage.deleteTopic(name, byId?.topicId);
  } catch (err) {
    const errorCode = storageFailure(broker.logger, err, { topic: name }, 'deleting a topic failed');
    return { name: w.name, topicId: w.topicId, errorCode, errorMessage: (err as Error).message };
  }
  if (deleted === undefined) {
    const errorCode = w.name === null ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    return { name: w.name, topicId: w.topicId, errorCode, errorMessage: 'no such topic' };
  }
  broker.logger.info({ topic: deleted.name }, 'topic deleted');
  await broker.groups.deleteTopicOffsets(deleted.name);
  return { name: deleted.name, topicId: deleted.topicId, errorCode: ErrorCode.NONE, errorMessage: null };
}
