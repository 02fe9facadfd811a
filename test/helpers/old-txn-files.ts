/**
 * The transaction files of an earlier brook, written as it wrote them, for tests of their move into
 * `__transaction_state`: its log of states and removals (`transactions-<g>.log`, records as
 * src/transactions/txn-files.ts reads them).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sealFrame } from '../../src/files/framed-records.js';
import { Writer } from '../../src/protocol/primitives/writer.js';
import type { Txn } from '../../src/transactions/txn-machine.js';
import type { TxnChange } from '../../src/transactions/txn-log-records.js';

const REMOVAL = 2;
const STATE = 3;
const STATES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort'];

/** Writes `changes` as the log of generation `generation` in `dir`. */
export async function writeOldTxnLog(dir: string, changes: readonly TxnChange[], generation = 0): Promise<void> {
  await writeFile(join(dir, `transactions-${generation}.log`), Buffer.concat(changes.map(encodeChange)));
}

function encodeChange(change: TxnChange): Buffer {
  const w = new Writer(128);
  // The frame header, filled in by sealFrame.
  w.writeUint32(0);
  w.writeUint32(0);
  if ('removed' in change) {
    w.writeInt8(REMOVAL);
    w.writeCompactString(change.transactionalId);
  } else writeTxn(w, change);
  return sealFrame(w.finish());
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
  w.writeInt64(txn.nextProducerId);
}
