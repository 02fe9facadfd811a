/**
 * Every transactional id's state, held in memory and kept in the data directory as Kafka keeps
 * its __transaction_state topic: a log of whole states, the last per id winning, compacted now and
 * then into a snapshot (files/generation-files.ts, `transactions-<g>.log` and `.snapshot`). A
 * state is stored (in the page cache, or under `--flush always` on disk) before it is taken: the
 * coordinator acts on nothing it could forget.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from '../files/durable-file.js';
import { GenerationFiles } from '../files/generation-files.js';
import type { FlushPolicy } from '../settings/kinds.js';
import type { Txn } from './txn-machine.js';
import { encodeTxn, scanTxns } from './txn-records.js';

export interface TxnStoreLog {
  warn(fields: object, message: string): void;
}

const FILES = new GenerationFiles('transactions');
/** The log is not compacted before it is this large, however few the ids. */
const COMPACTION_MIN_BYTES = 1024 * 1024;

interface Queued {
  readonly txn: Txn;
  readonly done: (err?: Error) => void;
}

export class TxnStore {
  private queue: Queued[] = [];
  private writing: Promise<void> | undefined;
  private unsynced = false;
  /** After a failed compaction, the log bytes the next one waits for. */
  private compactionDeferredTo = COMPACTION_MIN_BYTES;
  private readonly timer: NodeJS.Timeout | undefined;
  private failure: Error | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly dir: string,
    private readonly flush: FlushPolicy,
    private readonly log: TxnStoreLog,
    private readonly txns: Map<string, Txn>,
    private active: FileHandle,
    private generation: number,
    /** Bytes of the logs since the snapshot. */
    private logBytes: number,
  ) {
    if (typeof flush === 'object') {
      this.timer = setInterval(() => {
        if (this.unsynced) this.writing ??= this.drain(true);
      }, flush.intervalMs);
      this.timer.unref();
    }
  }

  /** The states kept in `dir`; a log's end that a crash cut off mid-record is cut from the file, and said so. */
  static async open(dir: string, flush: FlushPolicy, log: TxnStoreLog): Promise<TxnStore> {
    const files = await FILES.list(dir);
    const txns = new Map<string, Txn>();
    const loaded = await FILES.load(dir, files, (bytes) => scanTxns(bytes, (txn) => txns.set(txn.transactionalId, txn)));
    for (const cut of loaded.cuts) log.warn(cut, 'transaction log cut where its intact records end');
    await FILES.removeOlder(dir, files.snapshots.at(-1) ?? 0);
    const active = await open(join(dir, FILES.logName(loaded.generation)), 'a');
    if (!files.logs.includes(loaded.generation)) await syncDir(dir);
    return new TxnStore(dir, flush, log, txns, active, loaded.generation, loaded.logBytes);
  }

  get(transactionalId: string): Txn | undefined {
    return this.txns.get(transactionalId);
  }

  all(): IterableIterator<Txn> {
    return this.txns.values();
  }

  /** Stores `txn` as its id's state; it is taken once the promise resolves. */
  put(txn: Txn): Promise<void> {
    if (this.closing !== undefined) return Promise.reject(new Error('the transaction log is closed'));
    if (this.failure !== undefined) return Promise.reject(this.failedError());
    return new Promise((resolve, reject) => {
      this.queue.push({ txn, done: (err) => (err === undefined ? resolve() : reject(err)) });
      this.writing ??= this.drain();
    });
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    clearInterval(this.timer);
    while (this.writing !== undefined) await this.writing;
    try {
      if (this.failure === undefined && this.unsynced) await this.active.datasync();
    } finally {
      await this.active.close();
    }
  }

  /** Writes what is queued, one write (and under `always` one fsync) for all of it; compacts when due. */
  private async drain(syncWanted = false): Promise<void> {
    let sync = syncWanted;
    while (this.failure === undefined && (this.queue.length > 0 || sync)) {
      const batch = this.queue;
      this.queue = [];
      const syncNow = sync || (this.flush === 'always' && batch.length > 0);
      sync = false;
      try {
        if (batch.length > 0) {
          const bytes = Buffer.concat(batch.map((q) => encodeTxn(q.txn)));
          await this.active.write(bytes);
          this.logBytes += bytes.length;
          this.unsynced = true;
        }
        if (syncNow && this.unsynced) {
          await this.active.datasync();
          this.unsynced = false;
        }
      } catch (err) {
        // What part of the batch reached the file is not known: nothing more is taken until a restart.
        this.failure = err as Error;
        for (const q of [...batch, ...this.queue]) q.done(this.failedError());
        this.queue = [];
        break;
      }
      for (const q of batch) this.txns.set(q.txn.transactionalId, q.txn);
      for (const q of batch) q.done();
      if (this.logBytes >= this.compactionDeferredTo) await this.compact();
    }
    this.writing = undefined;
  }

  /**
   * Starts the next log and writes the states as they are as its snapshot; a failure leaves the
   * older files, which still hold everything, and is tried again once the log has doubled.
   */
  private async compact(): Promise<void> {
    const generation = this.generation + 1;
    const logBytes = this.logBytes;
    try {
      const next = await open(join(this.dir, FILES.logName(generation)), 'a');
      if (this.unsynced) await this.active.datasync();
      await this.active.close();
      this.active = next;
      this.generation = generation;
      this.unsynced = false;
      this.logBytes = 0;
      await FILES.writeSnapshot(this.dir, generation, [...this.txns.values()].map(encodeTxn), () => false);
      await FILES.removeOlder(this.dir, generation);
      this.compactionDeferredTo = COMPACTION_MIN_BYTES;
    } catch (err) {
      this.logBytes += logBytes;
      this.compactionDeferredTo = 2 * this.logBytes;
      this.log.warn({ err }, 'transaction log not compacted; it grows until the next try');
    }
  }

  private failedError(): Error {
    return new Error(`transaction log failed: ${this.failure?.message}`, { cause: this.failure });
  }
}
