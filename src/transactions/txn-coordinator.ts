/**
 * The transaction coordinator: Kafka's TransactionCoordinator for one broker. The rules are
 * txn-machine.ts's; this holds the stored states (txn-store.ts, in `__transaction_state`), takes one change of a
 * transactional id at a time, writes the markers and offsets of a decided transaction, aborts
 * transactions past their timeout, and after a restart completes what was decided, keeps what
 * was open and aborts what is past its timeout.
 *
 * Invariant: a state is stored before it is acted on. A Prepare state is stored before any marker
 * is written, and the Complete state only after every marker (and, on commit, the group offsets)
 * is, so a stop anywhere between is completed the same way from what was stored.
 */
import { coordinatorRefusal, type CoordinatorView, type Refused } from '../idempotence/producer-decision.js';
import { MAX_EPOCH } from '../idempotence/rules.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { Marker } from '../protocol/record-batch.js';
import { CoordinatorLogNotWritten, type CoordinatorLog } from '../protocol/coordinator-log.js';
import {
  addOffsets,
  addPartitions,
  commitOffsets,
  complete,
  endTxn,
  endTxnV2,
  expired,
  fenceAndAbort,
  idExpired,
  initProducerId,
  isComplete,
  coordinatorView,
  recovered,
  type InitRequest,
  type PendingOffset,
  type Step,
  type Txn,
  type TxnPartition,
} from './txn-machine.js';
import { TxnStore } from './txn-store.js';

export type { PendingOffset, Txn, TxnPartition, TxnState } from './txn-machine.js';

/** What a decided transaction acts on, outside the coordinator. */
export interface TxnParticipants {
  /** Appends the marker to the partition; resolves once it is stored. A partition gone meanwhile is skipped. */
  writeMarker(partition: TxnPartition, producerId: bigint, epoch: number, marker: Marker): Promise<void>;
  /** Makes the offsets the group's committed ones. */
  commitOffsets(groupId: string, offsets: readonly PendingOffset[]): Promise<void>;
  /** A producer id never handed out before. */
  nextProducerId(): Promise<bigint>;
}

export interface TxnEvents {
  begun(): void;
  ended(outcome: 'committed' | 'aborted' | 'timed_out'): void;
}

export interface TxnLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface TxnCoordinatorOptions {
  /** `__transaction_state`, as the broker gives it. */
  readonly stateLog: CoordinatorLog;
  /** transaction.max.timeout.ms */
  readonly maxTimeoutMs: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms */
  readonly abortIntervalMs: number;
  /** transactional.id.expiration.ms */
  readonly idExpirationMs: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms */
  readonly removeExpiredIntervalMs: number;
  readonly log: TxnLog;
  readonly events?: TxnEvents;
}

export interface InitAnswer {
  readonly errorCode: number;
  readonly producerId: bigint;
  readonly epoch: number;
}

/** EndTxn's answer: under transactions v2, the producer id and epoch of the producer's next transaction. */
export type EndAnswer = InitAnswer;

export class TxnCoordinator {
  /** The change of each transactional id under way: the next waits for it. */
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Producer id → its transactional id. */
  private readonly byProducer = new Map<bigint, string>();
  private readonly timer: NodeJS.Timeout;
  private readonly expiryTimer: NodeJS.Timeout;
  private readonly listeners = new Set<(transactionalId: string) => void>();
  private closed = false;

  private constructor(
    private readonly store: TxnStore,
    private readonly participants: TxnParticipants,
    private readonly options: TxnCoordinatorOptions,
  ) {
    for (const txn of store.all()) this.byProducer.set(txn.producerId, txn.transactionalId);
    this.timer = setInterval(() => this.sweep(), options.abortIntervalMs);
    this.timer.unref();
    this.expiryTimer = setInterval(() => this.removeExpiredIds(), options.removeExpiredIntervalMs);
    this.expiryTimer.unref();
  }

  /**
   * The coordinator of the states kept in `__transaction_state`, once an earlier brook's files in
   * `dir` are moved into it. Transactions open at the stop stay open, as
   * Kafka's TransactionStateManager loads them; those past their timeout are aborted, their
   * producers fenced, and decided ones completed, before it answers anything.
   */
  static async open(dir: string, participants: TxnParticipants, options: TxnCoordinatorOptions): Promise<TxnCoordinator> {
    const store = await TxnStore.open(dir, options.stateLog, options.log);
    const coordinator = new TxnCoordinator(store, participants, options);
    const now = Date.now();
    for (const txn of [...store.all()]) {
      const resumed = recovered(txn, now);
      if (resumed !== txn) {
        options.log.info({ transactionalId: txn.transactionalId }, 'transaction open at the stop past its timeout: aborted');
        await store.put(resumed);
      }
      if (resumed.state === 'PrepareCommit' || resumed.state === 'PrepareAbort')
        await coordinator.locked(txn.transactionalId, () => coordinator.finish(resumed, resumed !== txn));
    }
    return coordinator;
  }

  get(transactionalId: string): Txn | undefined {
    return this.store.get(transactionalId);
  }

  all(): IterableIterator<Txn> {
    return this.store.all();
  }

  /** Calls `listener` with each transactional id whose state was stored anew; returns a way to stop. */
  listen(listener: (transactionalId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Transactions open now: Ongoing, or decided and being completed. */
  openCount(): number {
    let open = 0;
    for (const txn of this.store.all()) if (!isComplete(txn.state)) open++;
    return open;
  }

  initProducerId(req: InitRequest): Promise<InitAnswer> {
    const refused = (errorCode: number): InitAnswer => ({ errorCode, producerId: -1n, epoch: -1 });
    return this.answered(req.transactionalId, refused, async () => {
      const txn = this.store.get(req.transactionalId);
      // An id is taken from the durable pool only when one may be needed.
      const fresh = txn === undefined || txn.epoch >= MAX_EPOCH - 1 ? await this.participants.nextProducerId() : undefined;
      const step = initProducerId(txn, req, this.options.maxTimeoutMs, Date.now(), () => fresh!);
      if ('error' in step) return refused(step.error);
      if ('abortFirst' in step) {
        // As Kafka's `TransactionCoordinator.handleInitProducerId`: the old producer's transaction is aborted first; the producer asks again.
        await this.put(step.abortFirst);
        await this.finish(step.abortFirst);
        return refused(ErrorCode.CONCURRENT_TRANSACTIONS);
      }
      if (step.ready !== txn) await this.save(step.ready);
      return { errorCode: ErrorCode.NONE, producerId: step.ready.producerId, epoch: step.ready.epoch };
    });
  }

  addPartitions(transactionalId: string, producerId: bigint, epoch: number, partitions: readonly TxnPartition[]): Promise<number> {
    return this.change(transactionalId, (txn) => addPartitions(txn, producerId, epoch, partitions, Date.now()));
  }

  addOffsets(transactionalId: string, producerId: bigint, epoch: number, groupId: string): Promise<number> {
    return this.change(transactionalId, (txn) => addOffsets(txn, producerId, epoch, groupId, Date.now()));
  }

  /** TxnOffsetCommit: the offsets are the group's once the transaction commits; `addsGroup` (v5+) adds the group first. */
  commitOffsets(
    transactionalId: string,
    producerId: bigint,
    epoch: number,
    groupId: string,
    offsets: readonly PendingOffset[],
    addsGroup = false,
  ): Promise<number> {
    return this.change(transactionalId, (txn) => commitOffsets(txn, producerId, epoch, groupId, offsets, Date.now(), addsGroup));
  }

  /**
   * EndTxn: answered once every marker (and, on commit, the offsets) is stored. Under transactions
   * v2 (`bumpsEpoch`, EndTxn v5+) the epoch is bumped in the stored Prepare state, and the answer
   * names the producer id and epoch the Complete state has.
   */
  endTxn(transactionalId: string, producerId: bigint, epoch: number, commit: boolean, bumpsEpoch = false): Promise<EndAnswer> {
    const refused = (errorCode: number): EndAnswer => ({ errorCode, producerId: -1n, epoch: -1 });
    return this.answered(transactionalId, refused, async () => {
      const txn = this.store.get(transactionalId);
      // An id is taken from the durable pool only when one may be needed.
      const fresh = bumpsEpoch && txn !== undefined && txn.epoch >= MAX_EPOCH - 1 ? await this.participants.nextProducerId() : undefined;
      const step = bumpsEpoch ? endTxnV2(txn, producerId, epoch, commit, Date.now(), () => fresh!) : endTxn(txn, producerId, epoch, commit, Date.now());
      if ('error' in step) return refused(step.error);
      const answer = (t: Txn): EndAnswer => (bumpsEpoch ? { errorCode: ErrorCode.NONE, producerId: t.producerId, epoch: t.epoch } : refused(ErrorCode.NONE));
      if (step.txn === txn) return answer(step.txn);
      await this.save(step.txn);
      const done = await this.finish(step.txn);
      return done ? answer(this.store.get(transactionalId)!) : refused(ErrorCode.CONCURRENT_TRANSACTIONS);
    });
  }

  /** What the coordinator holds of a transactional batch's producer, for the producer decision. */
  view(producerId: bigint, partition: TxnPartition): CoordinatorView {
    const id = this.byProducer.get(producerId);
    return coordinatorView(id === undefined ? undefined : this.store.get(id), producerId, partition);
  }

  /** AddPartitionsToTxn's verify-only question: what a transactional batch of the id's producer to the partition would be refused, if anything. */
  verify(transactionalId: string, producerId: bigint, epoch: number, partition: TxnPartition): Refused | undefined {
    return coordinatorRefusal(coordinatorView(this.store.get(transactionalId), producerId, partition), epoch);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.expiryTimer);
    while (this.locks.size > 0) await Promise.allSettled([...this.locks.values()]);
  }

  /** Runs `fn` once the id's earlier changes are done. */
  private locked<T>(transactionalId: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the transaction coordinator is closed'));
    const run = (this.locks.get(transactionalId) ?? Promise.resolve()).then(fn);
    const settled = run.catch(() => {});
    this.locks.set(transactionalId, settled);
    void settled.then(() => {
      if (this.locks.get(transactionalId) === settled) this.locks.delete(transactionalId);
    });
    return run;
  }

  /**
   * A request's change, run as `locked` runs it; a state the log refused to store is answered with
   * `refused` of the log's error, as Kafka's `TransactionCoordinator` answers the error
   * `TransactionStateManager.appendTransactionToLog` gives.
   */
  private answered<T>(transactionalId: string, refused: (errorCode: number) => T, fn: () => Promise<T>): Promise<T> {
    return this.locked(transactionalId, () =>
      fn().catch((err: unknown) => {
        if (err instanceof CoordinatorLogNotWritten) return refused(err.errorCode);
        throw err;
      }),
    );
  }

  /** Applies a step of the machine to the stored state, storing what it gives. */
  private change(transactionalId: string, step: (txn: Txn | undefined) => Step): Promise<number> {
    return this.answered(
      transactionalId,
      (errorCode) => errorCode,
      async () => {
        const txn = this.store.get(transactionalId);
        const next = step(txn);
        if ('error' in next) return next.error;
        if (next.txn !== txn) {
          if (txn?.state !== 'Ongoing') this.options.events?.begun();
          await this.save(next.txn);
        }
        return ErrorCode.NONE;
      },
    );
  }

  private async put(txn: Txn): Promise<void> {
    await this.store.put(txn);
    for (const listener of this.listeners) listener(txn.transactionalId);
  }

  private async save(txn: Txn): Promise<void> {
    await this.put(txn);
    this.byProducer.set(txn.producerId, txn.transactionalId);
  }

  /**
   * Writes the markers (and on commit the offsets) of a stored Prepare state and stores it
   * complete; whether that was done. A failure leaves it to be tried again by the sweep.
   */
  private async finish(txn: Txn, timedOut = false): Promise<boolean> {
    const marker: Marker = txn.state === 'PrepareCommit' ? 'commit' : 'abort';
    try {
      await Promise.all(txn.partitions.map((p) => this.participants.writeMarker(p, txn.producerId, txn.epoch, marker)));
      if (marker === 'commit') for (const g of txn.groups) if (g.offsets.length > 0) await this.participants.commitOffsets(g.groupId, g.offsets);
      await this.save(complete(txn, Date.now()));
    } catch (err) {
      this.options.log.error({ transactionalId: txn.transactionalId, err }, `transaction not completed (${marker}); tried again later`);
      return false;
    }
    this.options.events?.ended(timedOut ? 'timed_out' : marker === 'commit' ? 'committed' : 'aborted');
    return true;
  }

  /**
   * Kafka's TransactionStateManager.removeExpiredTransactionalIds: each id idle past
   * transactional.id.expiration.ms with no transaction open is removed from the store (a record
   * that keeps it removed across restarts) and forgotten; an id with a change under way waits for
   * the next run.
   */
  private removeExpiredIds(): void {
    const expiring = (txn: Txn): boolean => idExpired(txn, Date.now(), this.options.idExpirationMs);
    const ids: string[] = [];
    for (const txn of this.store.all()) if (!this.locks.has(txn.transactionalId) && expiring(txn)) ids.push(txn.transactionalId);
    for (const id of ids) {
      void this.locked(id, async () => {
        const current = this.store.get(id);
        if (current === undefined || !expiring(current)) return;
        await this.store.remove(id);
        for (const producerId of [current.producerId, current.lastProducerId]) if (this.byProducer.get(producerId) === id) this.byProducer.delete(producerId);
        for (const listener of this.listeners) listener(id);
      }).catch((err: Error) => this.options.log.error({ transactionalId: id, err }, 'expired transactional id not removed'));
    }
    if (ids.length > 0) this.options.log.info({ count: ids.length }, 'transactional ids expired');
  }

  /** Kafka's periodic abort of transactions past their timeout, and another try at any decided one left incomplete. */
  private sweep(): void {
    const now = Date.now();
    for (const txn of this.store.all()) {
      const id = txn.transactionalId;
      if (this.locks.has(id)) continue;
      if (expired(txn, now)) {
        void this.locked(id, async () => {
          const current = this.store.get(id)!;
          if (!expired(current, Date.now())) return;
          this.options.log.info({ transactionalId: id, timeoutMs: current.timeoutMs }, 'transaction timed out: aborted, its producer fenced');
          const aborting = fenceAndAbort(current, Date.now());
          await this.put(aborting);
          await this.finish(aborting, true);
        }).catch((err: Error) => this.options.log.error({ transactionalId: id, err }, 'timed-out transaction not aborted'));
      } else if (txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort') {
        void this.locked(id, async () => {
          const current = this.store.get(id)!;
          if (current.state === 'PrepareCommit' || current.state === 'PrepareAbort') await this.finish(current);
        }).catch(() => {});
      }
    }
  }
}
