/** What the transaction coordinator's decisions act on: markers appended to partition logs, offsets stored for groups. */
import { UNCHECKED } from '../idempotence/producer-decision.js';
import type { GroupCoordinator } from '../groups/group-coordinator.js';
import type { Storage } from '../log/storage.js';
import { assignPartitionLeaderEpoch, markerBatch, readBatchHeader } from '../protocol/record-batch.js';
import type { TxnParticipants } from '../transactions/txn-coordinator.js';
import { LEADER_EPOCH } from './config.js';
import type { PartitionWaiters } from './partition-waiters.js';

/** As Kafka's single coordinator epoch: brook's coordinator never moves. */
const COORDINATOR_EPOCH = 0;

export function txnParticipants(storage: Storage, groups: GroupCoordinator, waiters: PartitionWaiters): TxnParticipants {
  return {
    async writeMarker({ topic, partition }, producerId, epoch, marker) {
      const log = storage.partition(topic, partition);
      // A topic deleted since it was added holds nothing to mark.
      if (log === undefined) return;
      const now = Date.now();
      const batch = markerBatch(producerId, epoch, marker, COORDINATOR_EPOCH, now);
      assignPartitionLeaderEpoch(batch, 0, LEADER_EPOCH);
      const appended = log.append(batch, readBatchHeader(batch), now, UNCHECKED, marker);
      // The coordinator's epoch only grows, so the partition never saw a newer one: a refusal is a bug.
      if (appended.kind !== 'append') throw new Error(`the ${marker} marker of producer ${producerId} at epoch ${epoch} was refused: ${appended.kind}`);
      await log.whenWritten(appended.baseOffset);
      // Read_committed fetches waiting on the partition may read further now.
      waiters.notify(topic, partition);
    },
    commitOffsets: (groupId, offsets) => groups.storeOffsets(groupId, offsets),
    nextProducerId: () => storage.nextProducerId(),
  };
}
