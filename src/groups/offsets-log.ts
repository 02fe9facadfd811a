/**
 * What the group coordinator needs of `__consumer_offsets`, which the broker gives it
 * (broker/offsets-log.ts): appends to a group's partition, the records read back at the start,
 * and what moving an earlier brook's offset files in needs.
 */
import type { NewRecord } from '../protocol/stored-records.js';

/** The offsets topic as the broker gives it to the group coordinator. */
export interface OffsetsLog {
  /** The partition holding a group's records (Kafka's coordinator hash over the topic's partitions). */
  partitionFor(groupId: string): number;
  /**
   * Appends `records` as one batch to the partition, creating the topic first if need be, and
   * resolves once it is written; rejects with OffsetsNotWritten, or an I/O error.
   */
  append(partition: number, records: readonly NewRecord[]): Promise<void>;
  /** Hands every record of every partition to `onRecord`, from its log start to its end, each partition in offset order. */
  read(onRecord: (key: Buffer | null, value: Buffer | null) => void): Promise<void>;
}

/** An append the log refused: `errorCode` is what OffsetCommit answers, as Kafka's `GroupMetadataManager` maps the log's error. */
export class OffsetsNotWritten extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

export interface OffsetStoreLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** What the move needs of the offsets topic beyond appends. */
export interface MigrationLog {
  /** Deletes the topic, if there, and creates it afresh. */
  reset(): Promise<void>;
  /** Resolves once every record appended is fsynced. */
  sync(): Promise<void>;
}
