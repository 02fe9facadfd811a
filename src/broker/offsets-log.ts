/**
 * `__consumer_offsets` as the group coordinator writes and reads it, each group in the partition
 * Kafka's coordinator hash gives: its batches appended through
 * each partition's `Partition`, in the partition's turn, as Produce appends, and answered once
 * written (so `--flush always` holds for commits too); the records of every partition read back
 * at the start; the topic emptied and fsynced for the move of an earlier brook's offsets.
 */
import type { CoordinatorOffsetsLog } from '../groups/group-coordinator.js';
import { OffsetsNotWritten } from '../groups/offsets-log.js';
import { UNCHECKED } from '../idempotence/producer-decision.js';
import { coordinatorPartition } from '../cluster/placement.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { assignPartitionLeaderEpoch, offsetAfter, readBatchHeader } from '../protocol/record-batch.js';
import { encodeRecordBatch, readStoredRecords } from '../protocol/stored-records.js';
import { OFFSETS_TOPIC } from '../settings/internal-topics.js';
import type { BrokerConfig } from '../settings/settings.js';
import { ensureOffsetsTopic, offsetsPartitionCount } from './offsets-topic.js';
import type { Partitions } from './partition.js';

/** What one read of a partition at the start takes: its batches, and what compressed ones open to. */
const READ_BYTES = 1024 * 1024;
const DECOMPRESS_BYTES = 64 * 1024 * 1024;

type TopicSettings = Pick<BrokerConfig, 'offsetsTopicNumPartitions' | 'offsetsTopicSegmentBytes'>;

/**
 * The offsets topic over `partitions`; `epochOf` gives a partition's leader epoch, stamped on
 * what it stores.
 */
export function offsetsLog(partitions: Partitions, config: TopicSettings, epochOf: (topic: string, index: number) => number): CoordinatorOffsetsLog {
  const { storage } = partitions;
  const logs = () => Array.from({ length: storage.topic(OFFSETS_TOPIC)?.partitions ?? 0 }, (_, i) => storage.partition(OFFSETS_TOPIC, i)!);
  return {
    partitionFor: (groupId) => coordinatorPartition(groupId, offsetsPartitionCount(storage, config)),

    async append(index, records) {
      if (storage.topic(OFFSETS_TOPIC) === undefined) await ensureOffsetsTopic(storage, config);
      const partition = partitions.get(OFFSETS_TOPIC, index);
      if (partition === undefined) throw new OffsetsNotWritten(ErrorCode.COORDINATOR_NOT_AVAILABLE, `${OFFSETS_TOPIC} has no partition ${index}`);
      const appended = await partition.turn(undefined, () => {
        const gone = partition.gone;
        if (gone !== undefined) return gone;
        const now = Date.now();
        const batch = encodeRecordBatch(records, now);
        assignPartitionLeaderEpoch(batch, 0, epochOf(OFFSETS_TOPIC, index));
        return partition.append(batch, readBatchHeader(batch), now, UNCHECKED);
      });
      if (typeof appended === 'number') throw new OffsetsNotWritten(ErrorCode.COORDINATOR_NOT_AVAILABLE, `${OFFSETS_TOPIC}-${index} takes no appends`);
      if (appended.kind === 'refused')
        throw new OffsetsNotWritten(commitError(appended.errorCode), appended.message ?? `append refused with ${appended.errorCode}`);
      await partition.written(appended.baseOffset);
    },

    async read(onRecord) {
      for (const log of logs()) {
        for (let offset = log.logStartOffset; offset < log.highWatermark;) {
          const batches = await log.read(offset, READ_BYTES);
          if (batches.length === 0) break;
          for (const record of readStoredRecords(batches, offset, Infinity, DECOMPRESS_BYTES)) onRecord(record.key, record.value);
          offset = offsetAfter(batches);
        }
      }
    },

    async reset() {
      await storage.deleteTopic(OFFSETS_TOPIC);
      await ensureOffsetsTopic(storage, config);
    },

    async sync() {
      await Promise.all(logs().map((log) => log.sync()));
    },
  };
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
