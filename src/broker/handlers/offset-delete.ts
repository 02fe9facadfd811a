/** OffsetDelete: a group's committed offsets of some partitions go, by the group coordinator's rules. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../../protocol/messages/offset-delete.js';
import { defineApi } from '../api-handler.js';

export const offsetDelete = defineApi({
  request: OffsetDeleteRequest,
  response: OffsetDeleteResponse,
  minVersion: 0,
  maxVersion: 0,
  async handle(request, _info, broker): Promise<OffsetDeleteResponse> {
    // As Kafka: partitions the metadata does not know are answered without asking the coordinator.
    const named = request.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex })));
    const known = named.filter(({ topic, partition }) => broker.storage.partition(topic, partition) !== undefined);
    const outcome = await broker.groups.deleteOffsets(request.groupId, known);
    if (outcome.errorCode !== ErrorCode.NONE) return { errorCode: outcome.errorCode, throttleTimeMs: 0, topics: [] };
    const errors = new Map(known.map((p, i) => [p, outcome.partitionErrors[i]!]));
    let next = 0;
    const topics = request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: errors.get(named[next++]!) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      })),
    }));
    return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics };
  },
});
