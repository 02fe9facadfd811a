/**
 * The records of the transaction log and its snapshots (framed: files/framed-records.ts): each is
 * one transactional id's whole state, or its removal once the id expired (Kafka's tombstone in
 * __transaction_state), so the last record of an id is its state. Body, big-endian:
 *
 *   type (u8)
 *   1 state:   transactional id | producer id (i64) | epoch (i16) | last producer id (i64) | last epoch (i16) |
 *   timeout ms (i32) | state (u8) | start ms (i64) | update ms (i64) |
 *   partition count | per partition: topic | partition (i32) |
 *   group count | per group: group id | offset count | per offset: topic | partition (i32) | offset (i64) | leader epoch (i32) | metadata
 *   2 removal: transactional id
 *   names and metadata are compact strings (unsigned varint length + 1, UTF-8), counts unsigned varints.
 */
import { scanDecoded, sealFrame, type RecordScan } from '../files/framed-records.js';
import { ProtocolError } from '../protocol/primitives/errors.js';
import type { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import type { Txn, TxnState } from './txn-machine.js';

const STATE = 1;
const REMOVAL = 2;

/** The id forgotten: transactional.id.expiration.ms passed with no transaction open. */
export interface TxnRemoval {
  readonly transactionalId: string;
  readonly removed: true;
}

/** What one record holds: an id's state, or its removal. */
export type TxnChange = Txn | TxnRemoval;

const STATES: readonly TxnState[] = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort'];

/** A framed record whose body `writeBody` writes. */
function framed(size: number, writeBody: (w: Writer) => void): Buffer {
  const w = new Writer(size);
  // The frame header, filled in by sealFrame.
  w.writeUint32(0);
  w.writeUint32(0);
  writeBody(w);
  return sealFrame(w.finish());
}

export function encodeTxn(txn: Txn): Buffer {
  return framed(128, (w) => writeTxn(w, txn));
}

export function encodeRemoval(transactionalId: string): Buffer {
  return framed(32, (w) => {
    w.writeInt8(REMOVAL);
    w.writeCompactString(transactionalId);
  });
}

function writeTxn(w: Writer, txn: Txn): void {
  w.writeInt8(STATE);
  w.writeCompactString(txn.transactionalId);
  w.writeInt64(txn.producerId);
  w.writeInt16(txn.epoch);
  w.writeInt64(txn.lastProducerId);
  w.writeInt16(txn.lastEpoch);
  w.writeInt32(txn.timeoutMs);
  w.writeInt8(STATES.indexOf(txn.state));
  w.writeInt64(BigInt(txn.startMs));
  w.writeInt64(BigInt(txn.updateMs));
  w.writeUnsignedVarint(txn.partitions.length);
  for (const p of txn.partitions) {
    w.writeCompactString(p.topic);
    w.writeInt32(p.partition);
  }
  w.writeUnsignedVarint(txn.groups.length);
  for (const g of txn.groups) {
    w.writeCompactString(g.groupId);
    w.writeUnsignedVarint(g.offsets.length);
    for (const o of g.offsets) {
      w.writeCompactString(o.topic);
      w.writeInt32(o.partition);
      w.writeInt64(o.offset);
      w.writeInt32(o.leaderEpoch);
      w.writeCompactString(o.metadata);
    }
  }
}

function decodeChange(r: Reader): TxnChange {
  const type = r.readInt8();
  if (type === REMOVAL) return { transactionalId: r.readCompactString(), removed: true };
  if (type !== STATE) throw new ProtocolError(`unknown transaction record type ${type}`);
  const transactionalId = r.readCompactString();
  const producerId = r.readInt64();
  const epoch = r.readInt16();
  const lastProducerId = r.readInt64();
  const lastEpoch = r.readInt16();
  const timeoutMs = r.readInt32();
  const state = STATES[r.readInt8()];
  if (state === undefined) throw new ProtocolError('unknown transaction state');
  const startMs = Number(r.readInt64());
  const updateMs = Number(r.readInt64());
  const partitions = Array.from({ length: r.readUnsignedVarint() }, () => ({ topic: r.readCompactString(), partition: r.readInt32() }));
  const groups = Array.from({ length: r.readUnsignedVarint() }, () => ({
    groupId: r.readCompactString(),
    offsets: Array.from({ length: r.readUnsignedVarint() }, () => ({
      topic: r.readCompactString(),
      partition: r.readInt32(),
      offset: r.readInt64(),
      leaderEpoch: r.readInt32(),
      metadata: r.readCompactString(),
    })),
  }));
  return { transactionalId, producerId, epoch, lastProducerId, lastEpoch, timeoutMs, state, partitions, groups, startMs, updateMs };
}

/** Hands each intact record's change to `onChange`, in order, up to the first record cut short or failing its CRC. */
export function scanTxns(bytes: Buffer, onChange: (change: TxnChange) => void): RecordScan {
  return scanDecoded(bytes, decodeChange, onChange);
}
