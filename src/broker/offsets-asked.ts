/**
 * The offsets an OffsetCommit or TxnOffsetCommit asks to commit, sorted out as Kafka's
 * `KafkaApis.handleOffsetCommitRequest` does:
 * partitions of unknown topics and oversized metadata refused one by one, the rest to be checked
 * together, whose results are filled in once they are.
 */
import type { PartitionOffset } from '../groups/offset-store.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { BrokerContext } from './broker-context.js';

/** offset.metadata.max.bytes */
const MAX_METADATA_LENGTH = 4096;

interface AskedTopic {
  readonly name: string;
  readonly partitions: readonly {
    readonly partitionIndex: number;
    readonly committedOffset: bigint;
    readonly committedLeaderEpoch: number;
    readonly committedMetadata: string | null;
  }[];
}

export interface PartitionResult {
  partitionIndex: number;
  errorCode: number;
}

export interface OffsetsAsked {
  /** The answer's topics, each partition's result in the order asked. */
  readonly topics: { name: string; partitions: PartitionResult[] }[];
  /** The offsets to check and store. */
  readonly offsets: PartitionOffset[];
  /** Their results: the check's error for all of them. */
  readonly pending: PartitionResult[];
}

export function offsetsAsked(broker: BrokerContext, asked: readonly AskedTopic[]): OffsetsAsked {
  const offsets: PartitionOffset[] = [];
  const pending: PartitionResult[] = [];
  const topics = asked.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => {
      const result: PartitionResult = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
      if (broker.storage.partition(t.name, p.partitionIndex) === undefined) result.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if ((p.committedMetadata?.length ?? 0) > MAX_METADATA_LENGTH) result.errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
      else {
        offsets.push({
          topic: t.name,
          partition: p.partitionIndex,
          offset: p.committedOffset,
          leaderEpoch: p.committedLeaderEpoch,
          metadata: p.committedMetadata ?? '',
        });
        pending.push(result);
      }
      return result;
    }),
  }));
  return { topics, offsets, pending };
}
