/** What the transaction coordinator's decisions act on: markers appended to partitions, offsets stored for groups. */
import { UNCHECKED } from '../idempotence/producer-decision.js';
import type { GroupCoordinator } from '../groups/group-coordinator.js';
import { assignPartitionLeaderEpoch, markerBatch, readBatchHeader } from '../protocol/record-batch.js';
import type { TxnParticipants } from '../transactions/txn-coordinator.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { Partitions } from './partition.js';

/** As the coordinator epoch of Kafka's `TransactionStateManager`, were its partition never to move: brook's coordinator never moves. */
const COORDINATOR_EPOCH = 0;

/** `epochOf`: the partition's leader epoch, which its leader stamps on the markers it stores. */
export function txnParticipants(partitions: Partitions, groups: GroupCoordinator, epochOf: (topic: string, index: number) => number): TxnParticipants {
  return {
    async writeMarker({ topic, partition: index }, producerId, epoch, marker) {
      const partition = partitions.get(topic, index);
      // A topic deleted since it was added holds nothing to mark.
      if (partition === undefined) return;
      // In the partition's turn: after every batch that arrived before it, though one still waits to be checked.
      const appended = await partition.turn(undefined, () => {
        // A topic deleted while the marker waited holds nothing to mark.
        if (partition.gone === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) return undefined;
        const now = Date.now();
        const batch = markerBatch(producerId, epoch, marker, COORDINATOR_EPOCH, now);
        assignPartitionLeaderEpoch(batch, 0, epochOf(topic, index));
        return partition.append(batch, readBatchHeader(batch), now, UNCHECKED, marker);
      });
      if (appended === undefined) return;
      // The coordinator's epoch only grows, so the partition never saw a newer one: a refusal is a bug.
      if (appended.kind !== 'append') {
        const why = appended.kind === 'refused' ? (appended.verdict ?? appended.message) : appended.kind;
        throw new Error(`the ${marker} marker of producer ${producerId} at epoch ${epoch} was refused: ${why}`);
      }
      // Read_committed fetches waiting on the partition may read further once it is written.
      await partition.written(appended.baseOffset);
    },
    commitOffsets: (groupId, offsets) => groups.storeOffsets(groupId, offsets),
    nextProducerId: () => partitions.storage.nextProducerId(),
  };
}
