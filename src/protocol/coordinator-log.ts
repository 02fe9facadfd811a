/**
 * What a coordinator needs of its internal topic (`__consumer_offsets`, `__transaction_state`),
 * which the broker gives it (broker/coordinator-log.ts): appends to a key's partition, the
 * records read back at the start, and what moving an earlier brook's files in needs.
 */
import { ProtocolError } from './primitives/errors.js';
import type { NewRecord } from './stored-records.js';

/** A coordinator's internal topic as the broker gives it. */
export interface CoordinatorLog {
  /** The partition holding a key's records (Kafka's coordinator hash over the topic's partitions). */
  partitionFor(key: string): number;
  /**
   * Appends `records` as one batch to the partition, creating the topic first if need be, and
   * resolves once it is written; rejects with the error the broker's refusal maps to, or an I/O error.
   */
  append(partition: number, records: readonly NewRecord[]): Promise<void>;
  /** Hands every record of every partition to `onRecord`, from its log start to its end, each partition in offset order. */
  read(onRecord: (key: Buffer | null, value: Buffer | null) => void): Promise<void>;
  /** Deletes the topic, if there, and creates it afresh (an earlier brook's files moving in). */
  reset(): Promise<void>;
  /** Resolves once every record appended is fsynced. */
  sync(): Promise<void>;
}

/** An append the log refused, with the error code the coordinator answers. */
export class CoordinatorLogNotWritten extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads every record of `log` through `decode`, handing each to `onRecord` in order; the number
 * of records it could not decode (without a key, or whose bytes `decode` refused), which are
 * passed over.
 */
export async function readDecoded<T>(log: CoordinatorLog, decode: (key: Buffer, value: Buffer | null) => T, onRecord: (record: T) => void): Promise<number> {
  let undecodable = 0;
  await log.read((key, value) => {
    if (key === null) return void undecodable++;
    let record: T;
    try {
      record = decode(key, value);
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      return void undecodable++;
    }
    onRecord(record);
  });
  return undecodable;
}
