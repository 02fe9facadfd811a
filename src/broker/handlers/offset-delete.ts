/**
 * OffsetDelete: a group's committed offsets of some partitions go, by the group coordinator's rules;
 * as Kafka's `KafkaApis.handleOffsetDeleteRequest`, those of topics the client may not read are TOPIC_AUTHORIZATION_FAILED and stay.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../../protocol/messages/offset-delete.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';

export const offsetDelete = defineApi({
  request: OffsetDeleteRequest,
  response: OffsetDeleteResponse,
  minVersion: 0,
  maxVersion: 0,
  async handle(request, { connection }, broker): Promise<OffsetDeleteResponse> {
    // As Kafka's `KafkaApis.handleOffsetDeleteRequest`: partitions the metadata does not know are answered without asking the coordinator.
    const named = request.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex })));
    const readable = new Set(request.topics.filter((t) => mayDo(connection, broker, ResourceType.TOPIC, t.name, AclOperation.READ)).map((t) => t.name));
    const known = named.filter(({ topic, partition }) => readable.has(topic) && broker.storage.partition(topic, partition) !== undefined);
    const outcome = await broker.groups.deleteOffsets(request.groupId, known);
    if (outcome.errorCode !== ErrorCode.NONE) return { errorCode: outcome.errorCode, throttleTimeMs: 0, topics: [] };
    const errors = new Map(known.map((p, i) => [p, outcome.partitionErrors[i]!]));
    let next = 0;
    const topics = request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: errors.get(named[next++]!) ?? (readable.has(t.name) ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.TOPIC_AUTHORIZATION_FAILED),
      })),
    }));
    return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics };
  },
});
