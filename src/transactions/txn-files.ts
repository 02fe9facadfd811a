/**
 * The files an earlier brook kept transaction states in, in the data directory, numbered by
 * generation (files/generation-files.ts): `transactions-<g>.snapshot` and `transactions-<g>.log`.
 * Read once, to move them into `__transaction_state` (txn-migration.ts). Each framed record
 * (files/framed-records.ts) is one id's whole state, or its removal; the last of an id wins. Body,
 * big-endian:
 *
 *   type (u8)
 *   3 state:   transactional id | producer id (i64) | epoch (i16) | last producer id (i64) | last epoch (i16) |
 *   timeout ms (i32) | state (u8) | start ms (i64) | update ms (i64) |
 *   partition count | per partition: topic | partition (i32) |
 *   group count | per group: group id | offset count | per offset: topic | partition (i32) | offset (i64) | leader epoch (i32) | metadata
 *   next producer id (i64: transactions v2's move at the epoch's end, -1 for none)
 *   1 state as first written: the same without the next producer id
 *   2 removal: transactional id
 *   names and metadata are compact strings (unsigned varint length + 1, UTF-8), counts unsigned varints.
 */
import { scanDecoded } from '../files/framed-records.js';
import { GenerationFiles, type GenerationList, type Loaded } from '../files/generation-files.js';
import { ProtocolError } from '../protocol/primitives/errors.js';
import type { Reader } from '../protocol/primitives/reader.js';
import type { TxnState } from './txn-machine.js';
import type { TxnChange } from './txn-log-records.js';

export const TXN_FILES = new GenerationFiles('transactions');

export function listTxnFiles(dir: string): Promise<GenerationList> {
  return TXN_FILES.list(dir);
}

/** Replays the newest snapshot and the logs from its generation into `onChange`, cutting a log's damaged end. */
export function loadTxnFiles(dir: string, files: GenerationList, onChange: (change: TxnChange) => void): Promise<Loaded> {
  return TXN_FILES.load(dir, files, (bytes) => scanDecoded(bytes, decodeChange, onChange));
}

const STATE_WITHOUT_NEXT_PRODUCER = 1;
const REMOVAL = 2;
const STATE = 3;

const STATES: readonly TxnState[] = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort'];

function decodeChange(r: Reader): TxnChange {
  const type = r.readInt8();
  if (type === REMOVAL) return { transactionalId: r.readCompactString(), removed: true };
  if (type !== STATE && type !== STATE_WITHOUT_NEXT_PRODUCER) throw new ProtocolError(`unknown transaction record type ${type}`);
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
  const nextProducerId = type === STATE ? r.readInt64() : -1n;
  return { transactionalId, producerId, epoch, lastProducerId, lastEpoch, nextProducerId, timeoutMs, state, partitions, groups, startMs, updateMs };
}
