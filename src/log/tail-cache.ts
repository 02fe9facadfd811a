/**
 * The newest batches of a partition, kept in memory (the very buffers appended, no copies) so
 * readers at the tail are served without touching the disk. Bounded by the memory the buffers
 * pin: a batch sliced from a larger request or socket chunk keeps all of it alive, so each
 * distinct underlying allocation is counted once, whole.
 */
interface CachedBatch {
  readonly base: number;
  /** Offset after the batch. */
  readonly end: number;
  readonly bytes: Buffer;
}

export class TailCache {
  private batches: CachedBatch[] = [];
  private head = 0;
  private pinned = 0;
  private readonly holders = new Map<ArrayBufferLike, number>();

  constructor(private readonly maxBytes: number) {}

  push(base: number, end: number, bytes: Buffer): void {
    this.batches.push({ base, end, bytes });
    const holders = this.holders.get(bytes.buffer) ?? 0;
    if (holders === 0) this.pinned += bytes.buffer.byteLength;
    this.holders.set(bytes.buffer, holders + 1);
  }

  /** Drops the oldest batches beyond the budget, but only written ones (below `hw`). */
  trim(hw: number): void {
    while (this.pinned > this.maxBytes && this.head < this.batches.length && this.batches[this.head]!.end <= hw) {
      const { buffer } = this.batches[this.head++]!.bytes;
      const holders = this.holders.get(buffer)! - 1;
      if (holders > 0) this.holders.set(buffer, holders);
      else {
        this.holders.delete(buffer);
        this.pinned -= buffer.byteLength;
      }
    }
    if (this.head > 1024 && this.head * 2 > this.batches.length) {
      this.batches = this.batches.slice(this.head);
      this.head = 0;
    }
  }

  /** Whole batches from the one holding `fetchOffset`, below `hw`, within `maxBytes` but at least one; undefined if not cached. */
  read(fetchOffset: number, maxBytes: number, hw: number): Buffer[] | undefined {
    const first = this.batches[this.head];
    if (first === undefined || first.base > fetchOffset) return undefined;
    let lo = this.head;
    let hi = this.batches.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.batches[mid]!.base <= fetchOffset) lo = mid;
      else hi = mid - 1;
    }
    const out: Buffer[] = [];
    let total = 0;
    for (let i = lo; i < this.batches.length; i++) {
      const batch = this.batches[i]!;
      if (batch.base >= hw || (out.length > 0 && total + batch.bytes.length > maxBytes)) break;
      out.push(batch.bytes);
      total += batch.bytes.length;
    }
    return out;
  }
}
