/**
 * A partition's segments, oldest first, the newest (active) one last; the old ones kept open for
 * reading a few at a time.
 */
import type { FileHandle } from 'node:fs/promises';
import { type Segment, SegmentCache } from './segment.js';

/** Old segments kept open for reading at once, per partition. */
const OPEN_OLD_SEGMENTS = 4;

export class SegmentList {
  private readonly oldSegments = new SegmentCache(OPEN_OLD_SEGMENTS);
  /** The swap of compacted copies for segments under way, if any. */
  private swap: Promise<unknown> = Promise.resolve();

  constructor(private readonly segments: Segment[]) {}

  get active(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  /**
   * Where the oldest segment starts. Producer snapshots are kept from here, not from the log
   * start: recovery replays a segment from its start.
   */
  get oldestBase(): number {
    return this.segments[0]!.baseOffset;
  }

  get length(): number {
    return this.segments.length;
  }

  at(i: number): Segment {
    return this.segments[i]!;
  }

  indexOf(segment: Segment): number {
    return this.segments.indexOf(segment);
  }

  /** A copy, for walks that await: retention or DeleteRecords may delete the oldest meanwhile. */
  snapshot(): Segment[] {
    return [...this.segments];
  }

  push(segment: Segment): void {
    this.segments.push(segment);
  }

  /** Puts `replacement` where `olds` are (adjacent, oldest first: compaction's copy of them), and forgets them. */
  replace(olds: readonly Segment[], replacement: Segment): void {
    this.segments.splice(this.segments.indexOf(olds[0]!), olds.length, replacement);
    for (const old of olds) this.oldSegments.forget(old);
  }

  /**
   * Runs `swap`, which retires segments and puts their compacted copy in their place: a reader
   * that meets a retired one it had not opened finds nothing in it, and asks next() for what
   * follows, which waits for the swap.
   */
  replacing<T>(swap: () => Promise<T>): Promise<T> {
    const done = swap();
    this.swap = done.catch(() => {});
    return done;
  }

  /** after(), once a swap of `segment` under way is done. */
  async next(segment: Segment): Promise<Segment | undefined> {
    if (segment.replacedBy !== undefined) await this.swap;
    return this.after(segment);
  }

  /** Whether `olds` are in the list, adjacent, in this order. */
  holdsRun(olds: readonly Segment[]): boolean {
    const at = this.segments.indexOf(olds[0]!);
    return at >= 0 && olds.every((old, i) => this.segments[at + i] === old);
  }

  /** Takes the oldest `count` segments out of the list (the caller deletes their files). */
  removeOldest(count: number): Segment[] {
    const removed = this.segments.splice(0, count);
    for (const segment of removed) this.oldSegments.forget(segment);
    return removed;
  }

  /** Counts a read of an old segment, closing the least recently read beyond the few kept open. */
  touch(segment: Segment): void {
    this.oldSegments.touch(segment);
  }

  /** Runs `fn` on an old or active segment's file; if retention deleted the segment meanwhile, `gone`. */
  async use<T>(segment: Segment, gone: T, fn: (log: FileHandle) => Promise<T>): Promise<T> {
    if (segment !== this.active) this.oldSegments.touch(segment);
    try {
      return await segment.use(fn);
    } catch (err) {
      if (segment.deleted) return gone;
      throw err;
    }
  }

  segmentFor(offset: number): Segment {
    return this.segments[this.indexFor(offset)]!;
  }

  /**
   * The segment that holds what follows `segment`, which may have been deleted or replaced
   * meanwhile: after a replaced one, its replacement (still in the list), which may hold what
   * followed it; else the next by base offset.
   */
  after(segment: Segment): Segment | undefined {
    let replacement = segment.replacedBy;
    while (replacement?.replacedBy !== undefined) replacement = replacement.replacedBy;
    if (replacement !== undefined && this.segments[this.indexFor(replacement.baseOffset)] === replacement) return replacement;
    const i = this.indexFor(segment.baseOffset);
    return this.segments[i]!.baseOffset > segment.baseOffset ? this.segments[i] : this.segments[i + 1];
  }

  /** The index of the last segment whose base offset is at most `offset`, or 0. */
  private indexFor(offset: number): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.segments[mid]!.baseOffset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  close(): Promise<void[]> {
    return Promise.all(this.segments.map((s) => s.close()));
  }
}
