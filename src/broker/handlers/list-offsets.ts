/**
 * ListOffsets: earliest (-2), latest (-1), the record with the largest timestamp (-3, v7+), or
 * the first record at or after a timestamp. Under read_committed (v2+) the latest is the last
 * stable offset, and a record found at or past it is not told; the earliest is the log start.
 * brook tiers nothing to remote storage, so the earliest local offset (-4, v8+, KIP-405) is the
 * earliest, and the latest tiered one (-5, v9+, KIP-1005) is none, as Kafka's
 * `UnifiedLog.fetchOffsetByTimestamp` answers without remote storage; v10's timeout is for remote
 * reads (KIP-1075).
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '../../protocol/messages/list-offsets.js';
import { defineApi } from '../api-handler.js';
import { leaderEpochError } from '../config.js';
import type { PartitionLog } from '../../log/partition-log.js';
import { firstRecordAtOrAfter, readBatchHeader } from '../../protocol/record-batch.js';
import { readFailure } from '../storage-error.js';

const LATEST = -1n;
const EARLIEST = -2n;
const MAX_TIMESTAMP = -3n;
const EARLIEST_LOCAL = -4n;
const LATEST_TIERED = -5n;
const READ_COMMITTED = 1;

export const listOffsets = defineApi({
  request: ListOffsetsRequest,
  response: ListOffsetsResponse,
  minVersion: 0,
  maxVersion: 10,
  async handle(request, _info, broker): Promise<ListOffsetsResponse> {
    const asked = new Map<string, number>();
    const key = (topic: string, partition: number): string => `${topic}:${partition}`;
    for (const t of request.topics) for (const p of t.partitions) asked.set(key(t.name, p.partitionIndex), (asked.get(key(t.name, p.partitionIndex)) ?? 0) + 1);
    const topics: ListOffsetsResponse['topics'] = [];
    for (const t of request.topics) {
      const partitions: ListOffsetsResponse['topics'][number]['partitions'] = [];
      for (const p of t.partitions) {
        const log = broker.storage.partition(t.name, p.partitionIndex);
        // As Kafka's `KafkaApis.handleListOffsetRequest`: every mention of a partition named more than once is INVALID_REQUEST.
        let errorCode =
          asked.get(key(t.name, p.partitionIndex))! > 1
            ? ErrorCode.INVALID_REQUEST
            : log === undefined
              ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
              : leaderEpochError(p.currentLeaderEpoch, broker.cluster.epochOf(t.name, p.partitionIndex));
        let found: { offset: number; timestamp: number } | undefined;
        if (log !== undefined && errorCode === ErrorCode.NONE) {
          try {
            found = await lookup(log, p.timestamp, request.isolationLevel === READ_COMMITTED);
          } catch (err) {
            // As Kafka's `KafkaApis.handleListOffsetRequest`: a read that fails (damage in a segment) is that partition's error.
            errorCode = readFailure(broker.logger, err, { topic: t.name, partition: p.partitionIndex }, 'reading the log for ListOffsets failed');
          }
        }
        const offset = found?.offset ?? -1;
        partitions.push({
          partitionIndex: p.partitionIndex,
          errorCode,
          oldStyleOffsets: found === undefined ? [] : [BigInt(offset)],
          timestamp: BigInt(found?.timestamp ?? -1),
          offset: BigInt(offset),
          leaderEpoch: found === undefined ? -1 : broker.cluster.epochOf(t.name, p.partitionIndex),
        });
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
});

/**
 * As Kafka's `Partition.fetchOffsetForTimestamp`: the earliest is the log start whatever the
 * isolation level; only the latest and a look-up by timestamp stop at the last stable offset.
 */
async function lookup(log: PartitionLog, timestamp: bigint, committed: boolean): Promise<{ offset: number; timestamp: number } | undefined> {
  if (timestamp === EARLIEST || timestamp === EARLIEST_LOCAL) return { offset: log.logStartOffset, timestamp: -1 };
  if (timestamp === LATEST_TIERED) return undefined;
  if (timestamp === LATEST) return { offset: committed ? log.lastStableOffset : log.highWatermark, timestamp: -1 };
  const found = await lookupTime(log, timestamp);
  return committed && found !== undefined && found.offset >= log.lastStableOffset ? undefined : found;
}

async function lookupTime(log: PartitionLog, timestamp: bigint): Promise<{ offset: number; timestamp: number } | undefined> {
  const target = timestamp === MAX_TIMESTAMP ? await log.maxTimestamp() : Number(timestamp);
  if (target < 0) return undefined;
  // As Kafka's `UnifiedLog.fetchOffsetByTimestamp`: the first record at or after the log start whose timestamp reaches the target; a
  // batch the log start lies inside may hold none past the start, and then the next batch is looked at.
  for (let from = log.logStartOffset; ;) {
    const batch = await log.offsetForTimestamp(target, from);
    if (batch === undefined) return undefined;
    const bytes = await log.read(batch.offset, 1);
    if (bytes.length === 0) return undefined;
    const found = firstRecordAtOrAfter(bytes, target, from);
    if (found !== undefined) return found;
    const header = readBatchHeader(bytes, 0);
    from = header.baseOffset + header.lastOffsetDelta + 1;
  }
}
