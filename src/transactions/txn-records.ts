/**
 * The records of the transaction log and its snapshots (framed: files/framed-records.ts): each is
 * one transactional id's whole state, as Kafka's __transaction_state holds it (`TransactionLog`), so the last record
 * of an id is its state. Body, big-endian:
 *
 *   version (u8) | transactional id | producer id (i64) | epoch (i16) | last producer id (i64) | last epoch (i16) |
 *   timeout ms (i32) | state (u8) | start ms (i64) | update ms (i64) |
 *   partition count | per partition: topic | partition (i32) |
 *   group count | per group: group id | offset count | per offset: topic | partition (i32) | offset (i64) | leader epoch (i32) | metadata
 *   names and metadata are compact strings (unsigned varint length + 1, UTF-8), counts unsigned varints.
 */
import { scanDecoded, sealFrame, type RecordScan } from '../files/framed-records.js';
import { ProtocolError } from '../protocol/primitives/errors.js';
import type { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import type { Txn, TxnState } from './txn-machine.js';

const VERSION = 1;
const STATES: readonly TxnState[] = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort'];

export function encodeTxn(txn: Txn): Buffer {
  const w = new Writer(128);
  // The frame header, filled in by sealFrame.
  w.writeUint32(0);
  w.writeUint32(0);
  w.writeInt8(VERSION);
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
  return sealFrame(w.finish());
}

function decodeTxn(r: Reader): Txn {
  const version = r.readInt8();
  if (version !== VERSION) throw new ProtocolError(`unknown transaction record version ${version}`);
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

/** Hands each intact record's state to `onTxn`, in order, up to the first record cut short or failing its CRC. */
export function scanTxns(bytes: Buffer, onTxn: (txn: Txn) => void): RecordScan {
  return scanDecoded(bytes, decodeTxn, onTxn);
}
