/**
 * A transactional id's state as a record of `__transaction_state`, in Kafka's layout
 * (`TransactionLog.keyToBytes`, `valueToBytes`): the key is TransactionLogKey, the value
 * TransactionLogValue at version 1 (the version Kafka writes from transaction.version 1 on), the
 * state as Kafka's `TransactionState` byte, no partitions for Empty; an expired id's record is a
 * tombstone. PreviousProducerId (tag 0) holds the id before the last InitProducerId bump and
 * NextProducerId (tag 1) the id transactions v2 moves to at the epoch's end. What Kafka's value has
 * no field for, the epoch before the bump and the offsets a TxnOffsetCommit added, is kept in
 * tagged fields of brook's own, which Kafka's reader passes over as unknown.
 */
import { decodeCoordinatorKey, decodeCoordinatorValue, encodeCoordinatorKey, encodeCoordinatorValue } from '../protocol/coordinator-record.js';
import { TransactionLogKey, TransactionLogValue } from '../protocol/messages/coordinator-records.js';
import { ProtocolError } from '../protocol/primitives/errors.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import type { NewRecord } from '../protocol/stored-records.js';
import type { Txn, TxnGroup, TxnPartition, TxnState } from './txn-machine.js';

const VALUE_VERSION = 1;
const PREVIOUS_PRODUCER_ID_TAG = 0;
const NEXT_PRODUCER_ID_TAG = 1;
/** brook's own tags, far above Kafka's (0 to 3 in Kafka 4.3). */
const LAST_EPOCH_TAG = 10_000;
const GROUPS_TAG = 10_001;

/** Kafka's `TransactionState` ids; Dead (6) and PrepareEpochFence (7) are states brook never stores. */
const STATE_IDS: Readonly<Record<TxnState, number>> = { Empty: 0, Ongoing: 1, PrepareCommit: 2, PrepareAbort: 3, CompleteCommit: 4, CompleteAbort: 5 };
const STATES = Object.keys(STATE_IDS) as TxnState[];

/** The id forgotten: transactional.id.expiration.ms passed with no transaction open. */
export interface TxnRemoval {
  readonly transactionalId: string;
  readonly removed: true;
}

/** What one record holds: an id's state, or its removal. */
export type TxnChange = Txn | TxnRemoval;

export function txnRecord(txn: Txn): NewRecord {
  return { key: encodeCoordinatorKey(TransactionLogKey, { transactionalId: txn.transactionalId }), value: encodeValue(txn), headers: [] };
}

/** Kafka's tombstone for an expired id (`TransactionStateManager.removeExpiredTransactionalIds`). */
export function txnTombstone(transactionalId: string): NewRecord {
  return { key: encodeCoordinatorKey(TransactionLogKey, { transactionalId }), value: null, headers: [] };
}

/** The change a record holds; throws ProtocolError for a record that is not a transaction state. */
export function readTxnRecord(key: Buffer, value: Buffer | null): TxnChange {
  const { transactionalId } = decodeCoordinatorKey(TransactionLogKey, key);
  if (value === null) return { transactionalId, removed: true };
  const { version, value: v } = decodeCoordinatorValue(TransactionLogValue, value);
  const state = STATES[v.transactionStatus];
  if (state === undefined) throw new ProtocolError(`transaction state ${v.transactionStatus} is not one brook stores`);
  let lastEpoch = -1;
  let groups: readonly TxnGroup[] = [];
  if (version >= 1) {
    // The tagged fields follow the fixed ones, whose length their own encoding gives.
    const r = new Reader(value, fixedPart(v, version).length);
    r.readTaggedFields(undefined, version, (tr, tag) => {
      if (tag === LAST_EPOCH_TAG) lastEpoch = tr.readInt16();
      else if (tag === GROUPS_TAG) groups = readGroups(tr);
      else return false;
      return true;
    });
  }
  return {
    transactionalId,
    producerId: v.producerId,
    epoch: v.producerEpoch,
    lastProducerId: v.previousProducerId ?? -1n,
    lastEpoch,
    nextProducerId: v.nextProducerId ?? -1n,
    timeoutMs: v.transactionTimeoutMs,
    state,
    partitions: (v.transactionPartitions ?? []).flatMap((t) => t.partitionIds.map((partition) => ({ topic: t.topic, partition }))),
    groups,
    startMs: Number(v.transactionStartTimestampMs),
    updateMs: Number(v.transactionLastUpdateTimestampMs),
  };
}

/** The value's version and fields before the tagged ones: the encoding with no tagged field, less its zero count. */
function fixedPart(v: TransactionLogValue, version: number): Buffer {
  const bare: TransactionLogValue = { ...v, previousProducerId: -1n, nextProducerId: -1n, nextProducerEpoch: -1, clientTransactionVersion: 0 };
  const bytes = encodeCoordinatorValue(TransactionLogValue, version, bare);
  return bytes.subarray(0, bytes.length - 1);
}

function encodeValue(txn: Txn): Buffer {
  const v: TransactionLogValue = {
    producerId: txn.producerId,
    producerEpoch: txn.epoch,
    transactionTimeoutMs: txn.timeoutMs,
    transactionStatus: STATE_IDS[txn.state],
    transactionPartitions: txn.state === 'Empty' && txn.partitions.length === 0 ? null : byTopic(txn.partitions),
    transactionLastUpdateTimestampMs: BigInt(txn.updateMs),
    transactionStartTimestampMs: BigInt(txn.startMs),
  };
  const tags: [number, (w: Writer) => void][] = [];
  if (txn.lastProducerId !== -1n) tags.push([PREVIOUS_PRODUCER_ID_TAG, (w) => w.writeInt64(txn.lastProducerId)]);
  if (txn.nextProducerId !== -1n) tags.push([NEXT_PRODUCER_ID_TAG, (w) => w.writeInt64(txn.nextProducerId)]);
  if (txn.lastEpoch !== -1) tags.push([LAST_EPOCH_TAG, (w) => w.writeInt16(txn.lastEpoch)]);
  if (txn.groups.length > 0) tags.push([GROUPS_TAG, (w) => writeGroups(w, txn.groups)]);
  const w = new Writer(128);
  w.writeBuffer(fixedPart(v, VALUE_VERSION));
  w.writeUnsignedVarint(tags.length);
  for (const [tag, write] of tags) {
    w.writeUnsignedVarint(tag);
    const start = w.beginSized();
    write(w);
    w.endSized(start);
  }
  return w.finish();
}

function byTopic(partitions: readonly TxnPartition[]): { topic: string; partitionIds: number[] }[] {
  const topics = new Map<string, number[]>();
  for (const p of partitions) {
    const ids = topics.get(p.topic);
    if (ids === undefined) topics.set(p.topic, [p.partition]);
    else ids.push(p.partition);
  }
  return [...topics].map(([topic, partitionIds]) => ({ topic, partitionIds }));
}

/** Groups, compact as Kafka's flexible arrays: group id, then per offset topic, partition, offset, leader epoch, metadata. */
function writeGroups(w: Writer, groups: readonly TxnGroup[]): void {
  w.writeCompactArrayLength(groups.length);
  for (const g of groups) {
    w.writeCompactString(g.groupId);
    w.writeCompactArrayLength(g.offsets.length);
    for (const o of g.offsets) {
      w.writeCompactString(o.topic);
      w.writeInt32(o.partition);
      w.writeInt64(o.offset);
      w.writeInt32(o.leaderEpoch);
      w.writeCompactString(o.metadata);
    }
  }
}

function readGroups(r: Reader): TxnGroup[] {
  return Array.from({ length: r.readCompactArrayLength() }, () => ({
    groupId: r.readCompactString(),
    offsets: Array.from({ length: r.readCompactArrayLength() }, () => ({
      topic: r.readCompactString(),
      partition: r.readInt32(),
      offset: r.readInt64(),
      leaderEpoch: r.readInt32(),
      metadata: r.readCompactString(),
    })),
  }));
}
