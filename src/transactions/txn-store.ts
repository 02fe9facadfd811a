/**
 * Every transactional id's state, held in memory and kept in the data directory as Kafka's `TransactionStateManager` keeps
 * its __transaction_state topic: a log of whole states, the last per id winning, compacted in the
 * background into a snapshot (files/compacted-log.ts; `transactions-<g>.log` and `.snapshot`). A
 * state is stored (in the page cache, or under `--flush always` on disk) before it is taken: the
 * coordinator acts on nothing it could forget. An expired id's removal is a record too, as Kafka's
 * tombstone is (`TransactionStateManager.removeExpiredTransactionalIds`), so that it stays forgotten across a restart.
 */
import { CompactedLog, type CompactedLogOptions, type CompactedState } from '../files/compacted-log.js';
import { GenerationFiles } from '../files/generation-files.js';
import type { Txn } from './txn-machine.js';
import { encodeRemoval, encodeTxn, scanTxns, type TxnChange } from './txn-records.js';

const FILES = new GenerationFiles('transactions');

/** Each id's last state, and the bytes their records take: a removed id takes none. */
class TxnStates implements CompactedState<TxnChange> {
  readonly byId = new Map<string, Txn>();
  private bytes = 0;

  get liveBytes(): number {
    return this.bytes;
  }

  apply(change: TxnChange): void {
    const before = this.byId.get(change.transactionalId);
    if (before !== undefined) this.bytes -= encodeTxn(before).length;
    if ('removed' in change) {
      this.byId.delete(change.transactionalId);
      return;
    }
    this.byId.set(change.transactionalId, change);
    this.bytes += encodeTxn(change).length;
  }

  /** States are never changed in place, so those taken now are encoded as the snapshot is written. */
  snapshotRecords(): Iterable<Buffer> {
    return encodedEach([...this.byId.values()]);
  }
}

function* encodedEach(txns: readonly Txn[]): Iterable<Buffer> {
  for (const txn of txns) yield encodeTxn(txn);
}

export class TxnStore {
  private constructor(
    private readonly txns: TxnStates,
    private readonly log: CompactedLog<TxnChange>,
  ) {}

  /** The states kept in `dir`; a log's end that a crash cut off mid-record is cut from the file, and said so. */
  static async open(dir: string, options: CompactedLogOptions): Promise<TxnStore> {
    const txns = new TxnStates();
    const loaded = await FILES.load(dir, await FILES.list(dir), (bytes) => scanTxns(bytes, (change) => txns.apply(change)));
    return new TxnStore(txns, await CompactedLog.open(dir, FILES, 'transaction states', loaded, txns, options));
  }

  get(transactionalId: string): Txn | undefined {
    return this.txns.byId.get(transactionalId);
  }

  all(): IterableIterator<Txn> {
    return this.txns.byId.values();
  }

  /** Stores `txn` as its id's state; it is taken once the promise resolves. */
  put(txn: Txn): Promise<void> {
    return this.log.append(encodeTxn(txn), txn);
  }

  /**
   * Forgets the id, durably: its removal is appended to the log, and the next snapshot leaves it
   * out, so that neither memory nor the files keep it.
   */
  remove(transactionalId: string): Promise<void> {
    return this.log.append(encodeRemoval(transactionalId), { transactionalId, removed: true });
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
