/**
 * The newest batches of a partition, copied into one ring of memory the cache owns, so readers
 * at the tail are served without touching the disk. Copying (about 1 µs per 10 KB) keeps the
 * request buffers a batch arrived in from living on: buffers that outlive a few young
 * collections move to V8's old generation, and their churn there set off a full collection
 * every few megabytes under produce load. Only a partition some consumer fetched lately caches:
 * one only written pays no copy and holds no ring (its copy into a ring much larger than the
 * processor's caches cost ~10% of the CPU per 100-message batch), and its first fetch is served
 * from the files, as every fetch is in Kafka.
 */
import { constants } from 'node:buffer';
import type { ReadMemory } from './batch-file.js';
import { grownSize } from '../memory/grown-size.js';
import type { HeldMemory, MemoryBudget } from '../memory/memory-budget.js';

interface CachedBatch {
  readonly base: number;
  /** Offset after the batch. */
  readonly end: number;
  /** Where the batch starts in the stream of bytes written to the ring: the ring holds the last `ring.length` of them. */
  readonly at: number;
  readonly length: number;
}

/**
 * A partition's ring starts this small, and goes to the cache's capacity at once when its batches
 * need more (doubling only where the budget has less room): every size between would be memory
 * allocated, copied into and dropped, and V8 answers such long-lived memory with full collections.
 */
const FIRST_RING_BYTES = 64 * 1024;

export class TailCache implements HeldMemory {
  lastUsed = 0;
  /** The budget's tick when a consumer last fetched the partition. */
  private lastRead = -Infinity;
  private ring = Buffer.alloc(0);
  /** Entries before `head` are evicted. */
  private batches: CachedBatch[] = [];
  private head = 0;
  /** Stream position of the next copy. */
  private next = 0;

  constructor(
    private readonly capacity: number,
    private readonly budget: MemoryBudget,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 0 || capacity > constants.MAX_LENGTH) {
      throw new RangeError(`tail cache size ${capacity} is not a byte count a buffer can have`);
    }
  }

  /** A consumer fetched the partition: the batches pushed from now on are cached. */
  noteRead(): void {
    this.lastRead = this.budget.tick;
  }

  /**
   * Copies `bytes` in (the caller may reuse them), evicting the oldest batches it overwrites; if no
   * consumer fetched the partition for as long as the budget keeps idle memory, caches nothing and
   * holds on to nothing, leaving its ring for the budget to take back.
   */
  push(base: number, end: number, bytes: Buffer): void {
    if (this.budget.tick - this.lastRead >= this.budget.idleTicks) {
      this.evictBefore(Infinity);
      return;
    }
    this.lastUsed = this.budget.tick;
    const n = bytes.length;
    let at = this.placeFor(n);
    const oldest = this.batches[this.head]?.at ?? Infinity;
    if (n <= this.capacity && this.ring.length < this.capacity && (n > this.ring.length || oldest < at + n - this.ring.length) && this.grow(n)) {
      at = this.placeFor(n);
    }
    if (n > this.ring.length) {
      this.evictBefore(Infinity);
      return;
    }
    this.evictBefore(at + n - this.ring.length);
    this.ring.set(bytes, at % this.ring.length);
    this.batches.push({ base, end, at, length: n });
    this.next = at + n;
  }

  /**
   * A copy, in memory from `memory`, of the whole batches from the one holding `fetchOffset`,
   * below `hw`, within `maxBytes` but at least one; undefined if not cached.
   */
  read(fetchOffset: number, maxBytes: number, hw: number, memory: ReadMemory = Buffer.allocUnsafe): Buffer | undefined {
    this.lastUsed = this.budget.tick;
    const first = this.batches[this.head];
    if (first === undefined || first.base > fetchOffset) return undefined;
    let lo = this.head;
    let hi = this.batches.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.batches[mid]!.base <= fetchOffset) lo = mid;
      else hi = mid - 1;
    }
    let stop = lo;
    let total = 0;
    for (; stop < this.batches.length; stop++) {
      const batch = this.batches[stop]!;
      if (batch.base >= hw || (stop > lo && total + batch.length > maxBytes)) break;
      total += batch.length;
    }
    const copy = memory(total).subarray(0, total);
    let pos = 0;
    for (let i = lo; i < stop; i++) {
      const { at, length } = this.batches[i]!;
      const from = at % this.ring.length;
      copy.set(this.ring.subarray(from, from + length), pos);
      pos += length;
    }
    return copy;
  }

  /** Drops the batches below `offset`: compaction rewrote them. */
  forgetBelow(offset: number): void {
    while (this.head < this.batches.length && this.batches[this.head]!.base < offset) this.head++;
  }

  /** Where a batch of `n` bytes goes: next, unless it would run past the ring's end; batches never wrap. */
  private placeFor(n: number): number {
    const size = this.ring.length;
    const offset = this.next % size;
    return size > 0 && offset + n > size ? this.next + size - offset : this.next;
  }

  /** Gives the memory back to the budget: reads miss until the next push. */
  release(): void {
    this.budget.release(this);
  }

  drop(): void {
    this.ring = Buffer.alloc(0);
    this.batches = [];
    this.head = 0;
    this.next = 0;
  }

  /** A larger ring, with the cached batches moved to its start in order, if the budget allows it. */
  private grow(n: number): boolean {
    const kept = this.batches.slice(this.head);
    const keptBytes = kept.reduce((sum, b) => sum + b.length, 0);
    const size = this.largerRing(keptBytes + n);
    if (size === undefined) return false;
    const ring = Buffer.allocUnsafeSlow(size);
    let pos = 0;
    this.batches = kept.map((batch) => {
      const from = batch.at % this.ring.length;
      ring.set(this.ring.subarray(from, from + batch.length), pos);
      pos += batch.length;
      return { ...batch, at: pos - batch.length };
    });
    this.ring = ring;
    this.head = 0;
    this.next = pos;
    return true;
  }

  /**
   * What the ring grows to, the budget having granted it: from the first size, the capacity; where
   * the budget has less room than that, double. Undefined if it grants nothing larger.
   */
  private largerRing(needed: number): number | undefined {
    const doubled = grownSize(this.ring.length, needed, FIRST_RING_BYTES, this.capacity);
    for (const size of this.ring.length === 0 ? [doubled] : [this.capacity, doubled]) {
      if (size > this.ring.length && this.budget.grow(this, size - this.ring.length)) return size;
    }
    return undefined;
  }

  /** Drops the batches that start before stream position `at`. */
  private evictBefore(at: number): void {
    while (this.head < this.batches.length && this.batches[this.head]!.at < at) this.head++;
    if (this.head > 1024 && this.head * 2 > this.batches.length) {
      this.batches = this.batches.slice(this.head);
      this.head = 0;
    }
  }
}
