/**
 * Where a partition's appended batches wait for their write, copied out of the request they came
 * in: the request's memory is then free as soon as the request is handled (the connection reuses
 * it for the next large request), and no per-request allocation lives until the write. A log
 * keeps two and swaps them each turn: one fills while the other's batches are being written.
 */
import { grownSize } from '../memory/grown-size.js';

/** Room made at the first batch; the buffer doubles as a turn needs, up to the largest it keeps. */
const FIRST_BYTES = 64 * 1024;
const LARGEST_KEPT_BYTES = 1024 * 1024;

export class StagingBuffer {
  private buf = Buffer.alloc(0);
  private used = 0;

  /**
   * Copies `bytes` in and returns the copy, valid until reset(). When the buffer is full the copy
   * goes to a larger one; views of the old one stay valid, as nothing writes to it again.
   */
  add(bytes: Buffer): Buffer {
    const n = bytes.length;
    if (this.used + n > this.buf.length) {
      if (n > LARGEST_KEPT_BYTES) return Buffer.from(bytes);
      this.buf = Buffer.allocUnsafeSlow(grownSize(this.buf.length, n, FIRST_BYTES, LARGEST_KEPT_BYTES));
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
}
