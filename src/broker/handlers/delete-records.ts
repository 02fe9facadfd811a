/** DeleteRecords: moves partitions' log start up to an offset; -1 means the high watermark, as in Kafka. */
import { OffsetOutOfRangeError } from '../../log/partition-log.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { DeleteRecordsRequest, DeleteRecordsResponse } from '../../protocol/messages/delete-records.js';
import { defineApi } from '../api-handler.js';
import type { BrokerContext } from '../broker-context.js';
import { internalTopicRefusal } from '../internal-topic-refusals.js';
import { storageFailure } from '../storage-error.js';

type Wanted = DeleteRecordsRequest['topics'][number]['partitions'][number];
type Result = DeleteRecordsResponse['topics'][number]['partitions'][number];

const HIGH_WATERMARK = -1n;

export const deleteRecords = defineApi({
  request: DeleteRecordsRequest,
  response: DeleteRecordsResponse,
  minVersion: 0,
  maxVersion: 2,
  async handle(request, _info, broker): Promise<DeleteRecordsResponse> {
    const topics = await Promise.all(
      request.topics.map(async (t) => ({ name: t.name, partitions: await Promise.all(t.partitions.map((p) => deleteBefore(broker, t.name, p))) })),
    );
    return { throttleTimeMs: 0, topics };
  },
});

/** The low watermark answered is the log start after the delete; -1 with an error. */
async function deleteBefore(broker: BrokerContext, topic: string, p: Wanted): Promise<Result> {
  const answer = (errorCode: number, lowWatermark = -1): Result => ({ partitionIndex: p.partitionIndex, lowWatermark: BigInt(lowWatermark), errorCode });
  const log = broker.storage.partition(topic, p.partitionIndex);
  if (log === undefined) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  const internal = internalTopicRefusal('deleteRecords', topic);
  if (internal !== undefined) return answer(internal.errorCode);
  try {
    await log.advanceLogStart(p.offset === HIGH_WATERMARK ? log.highWatermark : Number(p.offset));
  } catch (err) {
    if (err instanceof OffsetOutOfRangeError) return answer(ErrorCode.OFFSET_OUT_OF_RANGE);
    // Its topic deleted meanwhile, which closed the log under the request.
    if (broker.storage.partition(topic, p.partitionIndex) !== log) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    return answer(storageFailure(broker.logger, err, { topic, partition: p.partitionIndex }, 'deleting records failed'));
  }
  return answer(ErrorCode.NONE, log.logStartOffset);
}
