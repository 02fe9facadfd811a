/**
 * A coordinator's internal topic (`__consumer_offsets`, `__transaction_state`) as the coordinator
 * writes and reads it, each key in the partition Kafka's coordinator hash gives: its batches
 * appended through each partition's `Partition`, in the partition's turn, as Produce appends, and
 * answered once written (so `--flush always` holds for them too); the records of every partition
 * read back at the start; the topic emptied and fsynced for the move of an earlier brook's files.
 */
import { UNCHECKED } from '../idempotence/producer-decision.js';
import { coordinatorPartition } from '../cluster/placement.js';
import { ensureInternalTopic, internalTopicPartitions } from '../log/internal-topics.js';
import { CoordinatorLogNotWritten, type CoordinatorLog } from '../protocol/coordinator-log.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { assignPartitionLeaderEpoch, offsetAfter, readBatchHeader } from '../protocol/record-batch.js';
import { encodeRecordBatch, readStoredRecords } from '../protocol/stored-records.js';
import type { InternalTopic } from '../settings/internal-topics.js';
import type { BrokerConfig } from '../settings/settings.js';
import type { Storage } from '../log/storage.js';
import type { Partitions } from './partition.js';

/** What one read of a partition at the start takes: its batches, and what compressed ones open to. */
const READ_BYTES = 1024 * 1024;
const DECOMPRESS_BYTES = 64 * 1024 * 1024;

/** The partition of `topic` holding `key`: Kafka's coordinator hash over the topic's partitions. */
export function keyPartition(storage: Storage, topic: InternalTopic, config: BrokerConfig, key: string): number {
  return coordinatorPartition(key, internalTopicPartitions(storage, topic, config));
}

/**
 * The internal topic `topic` over `partitions`; `epochOf` gives a partition's leader epoch,
 * stamped on what it stores; `answerFor` gives the coordinator's error code for an append the log
 * refused with another (UNKNOWN_TOPIC_OR_PARTITION when the partition is gone or takes no appends).
 */
export function coordinatorLog(
  partitions: Partitions,
  topic: InternalTopic,
  config: BrokerConfig,
  epochOf: (topic: string, index: number) => number,
  answerFor: (logError: number) => number,
): CoordinatorLog {
  const { storage } = partitions;
  const notWritten = (logError: number, message: string) => new CoordinatorLogNotWritten(answerFor(logError), message);
  const logs = () => Array.from({ length: storage.topic(topic)?.partitions ?? 0 }, (_, i) => storage.partition(topic, i)!);
  return {
    partitionFor: (key) => keyPartition(storage, topic, config, key),

    async append(index, records) {
      if (storage.topic(topic) === undefined) await ensureInternalTopic(storage, topic, config);
      const partition = partitions.get(topic, index);
      if (partition === undefined) throw notWritten(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${topic} has no partition ${index}`);
      const appended = await partition.turn(undefined, () => {
        const gone = partition.gone;
        if (gone !== undefined) return gone;
        const now = Date.now();
        const batch = encodeRecordBatch(records, now);
        assignPartitionLeaderEpoch(batch, 0, epochOf(topic, index));
        return partition.append(batch, readBatchHeader(batch), now, UNCHECKED);
      });
      if (typeof appended === 'number') throw notWritten(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `${topic}-${index} takes no appends`);
      if (appended.kind === 'refused') throw notWritten(appended.errorCode, appended.message ?? `append refused with ${appended.errorCode}`);
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
      await storage.deleteTopic(topic);
      await ensureInternalTopic(storage, topic, config);
    },

    async sync() {
      await Promise.all(logs().map((log) => log.sync()));
    },
  };
}
