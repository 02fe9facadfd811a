/** Fetch requests over the raw wire client, with every field a version up to 17 needs. */
import { FetchRequest, FetchResponse } from '../../src/protocol/messages/fetch.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { readBatchHeader } from '../../src/protocol/record-batch.js';
import type { WireClient } from './wire-client.js';

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

export interface FetchLimits {
  readonly offset?: number;
  readonly maxWaitMs?: number;
  readonly minBytes?: number;
  readonly maxBytes?: number;
  readonly partitionMaxBytes?: number;
  /** The leader epoch the consumer last saw; -1, none, unless given. */
  readonly currentLeaderEpoch?: number;
}

/** A Fetch of `topic`, naming these partitions in this order, each from `offset` (0 unless given). */
export function fetchOf(topic: string, partitions: readonly number[], limits: FetchLimits = {}): FetchRequest {
  const { offset = 0, maxWaitMs = 0, minBytes = 0, maxBytes = 1 << 20, partitionMaxBytes = maxBytes, currentLeaderEpoch = -1 } = limits;
  return {
    clusterId: null,
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1n },
    maxWaitMs,
    minBytes,
    maxBytes,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        topicId: ZERO_UUID,
        partitions: partitions.map((partition) => ({
          partition,
          currentLeaderEpoch,
          fetchOffset: BigInt(offset),
          lastFetchedEpoch: -1,
          logStartOffset: -1n,
          partitionMaxBytes,
          replicaDirectoryId: ZERO_UUID,
        })),
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  } as FetchRequest;
}

/** Every batch of a partition, from its log start to its high watermark (across compaction's gaps), one Fetch after another. */
export async function fetchAllBatches(client: WireClient, topic: string, partition: number): Promise<Buffer[]> {
  const batches: Buffer[] = [];
  for (let offset = 0; ;) {
    const res = await client.request(FetchRequest, FetchResponse, 12, fetchOf(topic, [partition], { offset }));
    const answer = res.responses[0]!.partitions[0]!;
    if (answer.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE && offset < Number(answer.logStartOffset)) {
      offset = Number(answer.logStartOffset);
      continue;
    }
    if (answer.errorCode !== 0) throw new Error(`fetch at ${offset} answered ${answer.errorCode}`);
    const records = answer.records ?? Buffer.alloc(0);
    if (records.length === 0) return batches;
    for (let pos = 0; pos < records.length;) {
      const header = readBatchHeader(records, pos);
      batches.push(Buffer.from(records.subarray(pos, pos + header.size)));
      pos += header.size;
      offset = header.baseOffset + header.lastOffsetDelta + 1;
    }
  }
}
