/**
 * What clients may not do to Kafka's internal topics, in one place: the requests that would write
 * to them, shrink them, grow them or delete them are refused here, whichever handler asks. The
 * coordinators write to them through their partitions, never through these requests.
 */
import { ErrorCode } from '../protocol/error-codes.js';
import { refusal, type Refusal } from '../protocol/refusal.js';
import { isInternalTopic } from '../settings/internal-topics.js';

const REFUSALS = {
  // As Kafka's `ReplicaManager.appendToLocalLog` refuses a client's append, after authorization and the topic's existence.
  produce: { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, doing: 'append to' },
  // As Kafka's `ReplicaManager.deleteRecordsOnLocalLog`.
  deleteRecords: { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, doing: 'delete records of' },
  // As Kafka's `KafkaApis.handleAddPartitionsToTxnRequest`, which never authorizes a client's write to them (up to v3).
  addPartitionsToTxn: { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, doing: 'add to a transaction' },
  // Kafka's controller deletes and grows them as any topic (docs/departures.md); deleted, the coordinators' state would go, and
  // grown, keys would hash to other partitions than those holding their state.
  deleteTopics: { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, doing: 'delete' },
  createPartitions: { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, doing: 'add partitions to' },
} as const;

/** Why a client's `request` may not act on `topic`; undefined if it may, `topic` not being internal. */
export function internalTopicRefusal(request: keyof typeof REFUSALS, topic: string): Refusal | undefined {
  if (!isInternalTopic(topic)) return undefined;
  const { errorCode, doing } = REFUSALS[request];
  return refusal(errorCode, `Cannot ${doing} internal topic ${topic}`);
}
