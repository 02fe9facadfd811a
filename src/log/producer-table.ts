/**
 * The producers of one partition packed into typed-array columns, a slot each: a producer costs
 * about a hundred bytes here, where an object per state and per window entry cost several
 * hundred, and a snapshot can read a slot in place. Slots freed by expiry are reused.
 */
import type { PartitionProducer } from '../idempotence/producer-decision.js';
import { WINDOW_SIZE, type WindowEntry } from '../idempotence/rules.js';

/** What must see a slot as it is before it changes: a snapshot being encoded. */
export interface SlotWatcher {
  beforeChange(slot: number): void;
}

/** The window length of a slot no producer holds. */
export const FREE_SLOT = 0xff;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A number key where the id is a safe integer (most are small): a Map holds it without a heap object, as it would a bigint. */
function keyOf(id: bigint): number | bigint {
  return id <= MAX_SAFE ? Number(id) : id;
}

export class ProducerTable {
  private readonly slots = new Map<number | bigint, number>();
  private readonly free: number[] = [];
  private readonly watchers: SlotWatcher[] = [];
  /** Slots ever handed out: those at or past it have never held a producer. */
  used = 0;
  ids = new BigInt64Array(0);
  epochs = new Int16Array(0);
  /** Window length, FREE_SLOT for a slot no producer holds. */
  lengths = new Uint8Array(0);
  lastTimestamps = new Float64Array(0);
  writtenAts = new Float64Array(0);
  /** The first offset of the producer's open transaction, -1 for none. */
  txnStarts = new Float64Array(0);
  /** WINDOW_SIZE pairs (firstSeq, lastSeq) per slot, oldest first. */
  seqs = new Int32Array(0);
  /** WINDOW_SIZE base offsets per slot, oldest first. */
  bases = new Float64Array(0);
  /** Window entries over all producers: with their count, the size of a snapshot. */
  windowEntries = 0;
  /**
   * The state of one slot as an object, last made or stored: an append asks for the state its
   * producer's batch was judged against just before, so this spares making it again.
   */
  private cachedSlot = -1;
  private cachedState: PartitionProducer | undefined;

  get size(): number {
    return this.slots.size;
  }

  slotOf(id: bigint): number | undefined {
    return this.slots.get(keyOf(id));
  }

  /** A slot for a new producer, with an empty window, no transaction and epoch 0. */
  add(id: bigint): number {
    const slot = this.free.pop() ?? this.newSlot();
    this.beforeChange(slot);
    this.ids[slot] = id;
    this.epochs[slot] = 0;
    this.lengths[slot] = 0;
    this.txnStarts[slot] = -1;
    this.slots.set(keyOf(id), slot);
    return slot;
  }

  remove(slot: number): void {
    this.beforeChange(slot);
    this.windowEntries -= this.lengths[slot]!;
    this.slots.delete(keyOf(this.ids[slot]!));
    this.lengths[slot] = FREE_SLOT;
    this.free.push(slot);
  }

  state(slot: number): PartitionProducer {
    if (slot === this.cachedSlot) return this.cachedState!;
    const length = this.lengths[slot]!;
    const window = new Array<WindowEntry>(length);
    for (let i = 0, at = slot * WINDOW_SIZE; i < length; i++, at++) {
      window[i] = { firstSeq: this.seqs[2 * at]!, lastSeq: this.seqs[2 * at + 1]!, baseOffset: this.bases[at]! };
    }
    const state = { epoch: this.epochs[slot]!, window, txnStart: this.txnStarts[slot]! };
    this.cache(slot, state);
    return state;
  }

  set(slot: number, state: PartitionProducer, lastTimestamp: number, writtenAt: number): void {
    this.beforeChange(slot);
    const { window } = state;
    this.windowEntries += window.length - this.lengths[slot]!;
    this.epochs[slot] = state.epoch;
    this.txnStarts[slot] = state.txnStart;
    this.lengths[slot] = window.length;
    this.lastTimestamps[slot] = lastTimestamp;
    this.writtenAts[slot] = writtenAt;
    for (let i = 0, at = slot * WINDOW_SIZE; i < window.length; i++, at++) {
      const entry = window[i]!;
      this.seqs[2 * at] = entry.firstSeq;
      this.seqs[2 * at + 1] = entry.lastSeq;
      this.bases[at] = entry.baseOffset;
    }
    this.cache(slot, state);
  }

  /** Has `watcher` told of every change from now until unwatch. */
  watch(watcher: SlotWatcher): void {
    this.watchers.push(watcher);
  }

  unwatch(watcher: SlotWatcher): void {
    this.watchers.splice(this.watchers.indexOf(watcher), 1);
  }

  private cache(slot: number, state: PartitionProducer): void {
    this.cachedSlot = slot;
    this.cachedState = state;
  }

  private beforeChange(slot: number): void {
    if (slot === this.cachedSlot) this.cachedSlot = -1;
    for (const watcher of this.watchers) watcher.beforeChange(slot);
  }

  private newSlot(): number {
    const slot = this.used;
    if (slot >= this.lengths.length) {
      // Grown by half: doubling would leave up to half the columns unused. Every column is made
      // before any is replaced, so a failed allocation leaves the table as it was.
      const capacity = Math.max(64, Math.ceil(slot * 1.5));
      const grown = <T extends { set(from: T): void }>(old: T, make: (n: number) => T, width = 1): T => {
        const bigger = make(capacity * width);
        bigger.set(old);
        return bigger;
      };
      const ids = grown(this.ids, (n) => new BigInt64Array(n));
      const epochs = grown(this.epochs, (n) => new Int16Array(n));
      const lengths = grown(this.lengths, (n) => new Uint8Array(n));
      const lastTimestamps = grown(this.lastTimestamps, (n) => new Float64Array(n));
      const writtenAts = grown(this.writtenAts, (n) => new Float64Array(n));
      const txnStarts = grown(this.txnStarts, (n) => new Float64Array(n));
      const seqs = grown(this.seqs, (n) => new Int32Array(n), 2 * WINDOW_SIZE);
      const bases = grown(this.bases, (n) => new Float64Array(n), WINDOW_SIZE);
      this.ids = ids;
      this.epochs = epochs;
      this.lengths = lengths;
      this.lastTimestamps = lastTimestamps;
      this.writtenAts = writtenAts;
      this.txnStarts = txnStarts;
      this.seqs = seqs;
      this.bases = bases;
    }
    this.used = slot + 1;
    return slot;
  }
}
