/**
 * Where a partition's appended batches wait for their write, copied out of the request they came
 * in: the request's memory is then free as soon as the request is handled (the connection reuses
 * it for the next large request), and no per-request allocation lives until the write. A log
 * keeps two and swaps them each turn: one fills while the other's batches are being written.
 */
import { grownSize } from '../memory/grown-size.js';
import type { HeldMemory, MemoryBudget } from '../memory/memory-budget.js';

/** Room made at the first batch; the buffer doubles as a turn needs, up to the largest it keeps. */
const FIRST_BYTES = 64 * 1024;
const LARGEST_KEPT_BYTES = 1024 * 1024;

export class StagingBuffer implements HeldMemory {
  lastUsed = 0;
  private buf = Buffer.alloc(0);
  private used = 0;

  constructor(private readonly budget: MemoryBudget) {}

  /**
   * Copies `bytes` in and returns the copy, valid until reset(). When the buffer is full the copy
   * goes to a larger one; views of the old one stay valid, as nothing writes to it again. A copy
   * the budget has no room for is made on its own.
   */
  add(bytes: Buffer): Buffer {
    this.lastUsed = this.budget.tick;
    const n = bytes.length;
    if (this.used + n > this.buf.length) {
      if (n > LARGEST_KEPT_BYTES) return Buffer.from(bytes);
      const size = grownSize(this.buf.length, n, FIRST_BYTES, LARGEST_KEPT_BYTES);
      if (!this.budget.grow(this, size - this.buf.length)) return Buffer.from(bytes);
      this.buf = Buffer.allocUnsafeSlow(size);
      this.used = 0;
    }
    this.buf.set(bytes, this.used);
    const copy = this.buf.subarray(this.used, this.used + n);
    this.used += n;
    return copy;
  }

  /** The copies handed out are written: their room is reused. */
  reset(): void {
    this.used = 0;
  }

  /** Gives the memory back to the budget. */
  release(): void {
    this.budget.release(this);
  }

  /** Copies handed out stay valid: they keep the old memory until they are written. */
  drop(): void {
    this.buf = Buffer.alloc(0);
    this.used = 0;
  }
}
