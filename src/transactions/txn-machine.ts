/**
 * The transaction coordinator's rules for one transactional id, as Kafka's TransactionCoordinator
 * applies them (KIP-98, KIP-360, KIP-588). Pure: no I/O, no clock; each step takes the stored
 * transaction and gives the next one to store, or an error code. The coordinator stores a Prepare
 * state before it writes any marker, and the Complete state after the last one, so a stop between
 * the two is completed from what was stored.
 *
 *   Empty | CompleteCommit | CompleteAbort --AddPartitions/AddOffsets--> Ongoing
 *   Ongoing --EndTxn--> PrepareCommit | PrepareAbort --markers written--> CompleteCommit | CompleteAbort
 *   Ongoing --timeout (across a restart too), a new InitProducerId--> PrepareAbort, the epoch bumped (fencing the producer)
 *   Empty | CompleteCommit | CompleteAbort --transactional.id.expiration.ms without a change--> forgotten
 */
import type { CoordinatorView } from '../idempotence/producer-decision.js';
import { MAX_EPOCH } from '../idempotence/rules.js';
import { ErrorCode } from '../protocol/error-codes.js';

export type TxnState = 'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort';

export interface TxnPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface PendingOffset extends TxnPartition {
  readonly offset: bigint;
  readonly leaderEpoch: number;
  readonly metadata: string;
}

/** A consumer group added to the transaction (AddOffsetsToTxn) and the offsets committed in it so far. */
export interface TxnGroup {
  readonly groupId: string;
  readonly offsets: readonly PendingOffset[];
}

export interface Txn {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly epoch: number;
  /** The id and epoch before the last InitProducerId bump: a retry of that call names them (KIP-360). */
  readonly lastProducerId: bigint;
  readonly lastEpoch: number;
  readonly timeoutMs: number;
  readonly state: TxnState;
  readonly partitions: readonly TxnPartition[];
  readonly groups: readonly TxnGroup[];
  /** When the open transaction began (its first AddPartitions or AddOffsets), -1 when none is open. */
  readonly startMs: number;
  readonly updateMs: number;
}

export type Step = { readonly error: number } | { readonly txn: Txn };

export interface InitRequest {
  readonly transactionalId: string;
  readonly timeoutMs: number;
  /** The id and epoch the producer has (KIP-360, v3+); -1 and -1 when it has none. */
  readonly producerId: bigint;
  readonly epoch: number;
}

/**
 * `ready`: answer the txn's id and epoch. `abortFirst`: the stored transaction was open; `txn` is it
 * fenced and preparing to abort, and the producer is answered CONCURRENT_TRANSACTIONS so that it
 * asks again once the abort is complete, as Kafka does.
 */
export type InitStep = { readonly error: number } | { readonly ready: Txn } | { readonly abortFirst: Txn };

const error = (code: number): { error: number } => ({ error: code });

/** InitProducerId with a transactional id. `newProducerId` hands out an id never used before. */
export function initProducerId(txn: Txn | undefined, req: InitRequest, maxTimeoutMs: number, now: number, newProducerId: () => bigint): InitStep {
  if (req.timeoutMs <= 0 || req.timeoutMs > maxTimeoutMs) return error(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
  if (txn === undefined) {
    const producerId = newProducerId();
    return { ready: { ...cleared(req.transactionalId, now), producerId, lastProducerId: -1n, timeoutMs: req.timeoutMs } };
  }
  if (req.producerId >= 0n) {
    // A retry of the bump just made (its answer was lost) gets the same answer.
    if (req.producerId === txn.lastProducerId && req.epoch === txn.lastEpoch && isComplete(txn.state)) return { ready: txn };
    if (req.producerId !== txn.producerId || req.epoch !== txn.epoch) return error(ErrorCode.PRODUCER_FENCED);
  }
  switch (txn.state) {
    case 'PrepareCommit':
    case 'PrepareAbort':
      return error(ErrorCode.CONCURRENT_TRANSACTIONS);
    case 'Ongoing':
      return { abortFirst: fenceAndAbort(txn, now) };
    default:
      return { ready: { ...bumped(txn, newProducerId), state: 'Empty', timeoutMs: req.timeoutMs, updateMs: now } };
  }
}

/** Whether (producerId, epoch) is the txn's producer; the error Kafka answers otherwise. */
function verify(txn: Txn | undefined, producerId: bigint, epoch: number): number {
  if (txn === undefined || txn.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
  if (txn.epoch !== epoch) return ErrorCode.PRODUCER_FENCED;
  return ErrorCode.NONE;
}

/** The txn open (Ongoing), begun now unless it was already; or the error Kafka answers. */
function opened(txn: Txn | undefined, producerId: bigint, epoch: number, now: number): Step {
  const refused = verify(txn, producerId, epoch);
  if (refused !== ErrorCode.NONE) return error(refused);
  if (txn!.state === 'PrepareCommit' || txn!.state === 'PrepareAbort') return error(ErrorCode.CONCURRENT_TRANSACTIONS);
  if (txn!.state === 'Ongoing') return { txn: txn! };
  return { txn: { ...txn!, state: 'Ongoing', partitions: [], groups: [], startMs: now, updateMs: now } };
}

export function addPartitions(txn: Txn | undefined, producerId: bigint, epoch: number, partitions: readonly TxnPartition[], now: number): Step {
  const step = opened(txn, producerId, epoch, now);
  if ('error' in step) return step;
  const added = partitions.filter((p, i) => !hasPartition(step.txn.partitions, p) && partitions.findIndex((q) => samePartition(p, q)) === i);
  if (added.length === 0) return step;
  return { txn: { ...step.txn, partitions: [...step.txn.partitions, ...added], updateMs: now } };
}

export function addOffsets(txn: Txn | undefined, producerId: bigint, epoch: number, groupId: string, now: number): Step {
  const step = opened(txn, producerId, epoch, now);
  if ('error' in step || step.txn.groups.some((g) => g.groupId === groupId)) return step;
  return { txn: { ...step.txn, groups: [...step.txn.groups, { groupId, offsets: [] }], updateMs: now } };
}

/**
 * TxnOffsetCommit: the offsets become the group's pending offsets in the transaction (a later one for
 * a partition replaces the earlier), committed by the transaction's commit. The group must have
 * been added by AddOffsetsToTxn. An older epoch is INVALID_PRODUCER_EPOCH, as this API answers.
 */
export function commitOffsets(txn: Txn | undefined, producerId: bigint, epoch: number, groupId: string, offsets: readonly PendingOffset[], now: number): Step {
  const refused = verify(txn, producerId, epoch);
  if (refused !== ErrorCode.NONE) return error(refused === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : refused);
  const group = txn!.groups.find((g) => g.groupId === groupId);
  if (txn!.state !== 'Ongoing' || group === undefined) return error(ErrorCode.INVALID_TXN_STATE);
  const kept = group.offsets.filter((o) => !hasPartition(offsets, o));
  const groups = txn!.groups.map((g) => (g === group ? { groupId, offsets: [...kept, ...offsets] } : g));
  return { txn: { ...txn!, groups, updateMs: now } };
}

/**
 * EndTxn. `txn` unchanged in the answer means there is nothing to do: a retry of the EndTxn that
 * completed it. Otherwise it is the Prepare state to store before the markers are written.
 */
export function endTxn(txn: Txn | undefined, producerId: bigint, epoch: number, commit: boolean, now: number): Step {
  const refused = verify(txn, producerId, epoch);
  if (refused !== ErrorCode.NONE) return error(refused);
  const t = txn!;
  switch (t.state) {
    case 'Ongoing':
      return { txn: { ...t, state: commit ? 'PrepareCommit' : 'PrepareAbort', updateMs: now } };
    case 'CompleteCommit':
      return commit ? { txn: t } : error(ErrorCode.INVALID_TXN_STATE);
    case 'CompleteAbort':
      return commit ? error(ErrorCode.INVALID_TXN_STATE) : { txn: t };
    case 'PrepareCommit':
      return commit ? error(ErrorCode.CONCURRENT_TRANSACTIONS) : error(ErrorCode.INVALID_TXN_STATE);
    case 'PrepareAbort':
      return commit ? error(ErrorCode.INVALID_TXN_STATE) : error(ErrorCode.CONCURRENT_TRANSACTIONS);
    case 'Empty':
      return error(ErrorCode.INVALID_TXN_STATE);
  }
}

/** The Complete state once every marker of a Prepare state is written (and, on commit, its offsets). */
export function complete(txn: Txn, now: number): Txn {
  if (txn.state !== 'PrepareCommit' && txn.state !== 'PrepareAbort') throw new Error(`${txn.transactionalId} is ${txn.state}, not preparing`);
  return { ...txn, state: txn.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort', partitions: [], groups: [], startMs: -1, updateMs: now };
}

/** Whether the transaction has been open longer than its timeout. */
export function expired(txn: Txn, now: number): boolean {
  return txn.state === 'Ongoing' && now - txn.startMs > txn.timeoutMs;
}

/**
 * Whether the id is forgotten, as Kafka's TransactionStateManager.shouldExpire decides: no
 * transaction open or being completed (Empty, CompleteCommit, CompleteAbort) and no change for
 * transactional.id.expiration.ms. Its next InitProducerId starts it afresh, with a new producer id.
 */
export function idExpired(txn: Txn, now: number, expirationMs: number): boolean {
  return isComplete(txn.state) && txn.updateMs <= now - expirationMs;
}

/**
 * The txn as the coordinator resumes it after a restart, as Kafka's TransactionStateManager loads
 * it: an open transaction stays open with its partitions, producer and start, to be ended by its
 * producer or aborted at its timeout (counted from its start, so one past it is aborted now); a
 * Prepare state is completed as it was.
 */
export function recovered(txn: Txn, now: number): Txn {
  return expired(txn, now) ? fenceAndAbort(txn, now) : txn;
}

/**
 * Aborts an open transaction the producer did not end: the epoch is bumped first, so the markers
 * carry the new epoch and fence the producer everywhere (its next call gets PRODUCER_FENCED).
 * At the epoch's end the producer is not fenced here; its next InitProducerId moves to a new id.
 */
export function fenceAndAbort(txn: Txn, now: number): Txn {
  if (txn.state !== 'Ongoing') throw new Error(`${txn.transactionalId} is ${txn.state}, not open`);
  const epoch = txn.epoch < MAX_EPOCH ? txn.epoch + 1 : txn.epoch;
  return { ...txn, epoch, state: 'PrepareAbort', updateMs: now };
}

/** No transaction of the producer id: its batches are INVALID_PRODUCER_ID_MAPPING. */
const NO_TRANSACTION: CoordinatorView = { epoch: -1, partitionAdded: false };

/** What the coordinator holds of a transactional batch's producer, for the producer decision: its epoch, and whether the partition is in its open transaction. */
export function coordinatorView(txn: Txn | undefined, producerId: bigint, partition: TxnPartition): CoordinatorView {
  if (txn === undefined || txn.producerId !== producerId) return NO_TRANSACTION;
  return { epoch: txn.epoch, partitionAdded: txn.state === 'Ongoing' && hasPartition(txn.partitions, partition) };
}

export function isComplete(state: TxnState): boolean {
  return state === 'Empty' || state === 'CompleteCommit' || state === 'CompleteAbort';
}

/**
 * The next epoch of a producer whose transaction is complete; at the epoch's end (keeping one
 * epoch spare for fencing an open transaction) a new producer id at epoch 0, as Kafka does.
 */
function bumped(txn: Txn, newProducerId: () => bigint): Txn {
  const last = { lastProducerId: txn.producerId, lastEpoch: txn.epoch };
  if (txn.epoch >= MAX_EPOCH - 1) return { ...txn, ...last, producerId: newProducerId(), epoch: 0 };
  return { ...txn, ...last, epoch: txn.epoch + 1 };
}

function cleared(transactionalId: string, now: number): Omit<Txn, 'producerId' | 'lastProducerId' | 'timeoutMs'> {
  return { transactionalId, epoch: 0, lastEpoch: -1, state: 'Empty', partitions: [], groups: [], startMs: -1, updateMs: now };
}

function samePartition(a: TxnPartition, b: TxnPartition): boolean {
  return a.topic === b.topic && a.partition === b.partition;
}

function hasPartition(list: readonly TxnPartition[], p: TxnPartition): boolean {
  return list.some((q) => samePartition(p, q));
}
