/** Fetch requests over the raw wire client, with every field a version up to 17 needs. */
import type { FetchRequest } from '../../src/protocol/messages/fetch.js';

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
