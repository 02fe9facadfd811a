/**
 * `__consumer_offsets` as the group coordinator writes and reads it (broker/coordinator-log.ts),
 * the log's refusals answered as OffsetCommit answers them.
 */
import type { CoordinatorLog } from '../protocol/coordinator-log.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { OFFSETS_TOPIC } from '../settings/internal-topics.js';
import type { BrokerConfig } from '../settings/settings.js';
import { coordinatorLog } from './coordinator-log.js';
import type { Partitions } from './partition.js';

/**
 * The offsets topic over `partitions`; `epochOf` gives a partition's leader epoch, stamped on
 * what it stores.
 */
export function offsetsLog(partitions: Partitions, config: BrokerConfig, epochOf: (topic: string, index: number) => number): CoordinatorLog {
  return coordinatorLog(partitions, OFFSETS_TOPIC, config, epochOf, commitError);
}

/** As Kafka's `GroupMetadataManager.storeOffsets` maps the log's error to OffsetCommit's. */
function commitError(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
      return ErrorCode.INVALID_COMMIT_OFFSET_SIZE;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    default:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}
