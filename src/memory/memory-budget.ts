/**
 * The memory all partitions keep between requests (tail caches, staging buffers), bounded
 * broker-wide. A holder asks before it grows; to make room the budget takes memory back from the
 * least recently used holders, and a sweep takes it back from those idle for a while. A holder
 * that gave its memory back serves from the files (the page cache, as in Kafka) until it grows
 * again.
 */

/** Memory a partition keeps, which the budget may take back at any time between two of its calls. */
export interface HeldMemory {
  /** The budget's tick at its last use. */
  lastUsed: number;
  /** Drops its memory (called by the budget only); it asks the budget again before growing. */
  drop(): void;
}

/** Making room takes memory back down to this share of the limit, so that it happens rarely. */
const AFTER_EVICTION = 7 / 8;

export class MemoryBudget {
  /** Advanced by the sweep, once a second. */
  tick = 0;
  /** Ticks a holder may go unused before the sweep takes its memory back: never, without a sweep. */
  idleTicks = Infinity;
  private used = 0;
  private readonly held = new Map<HeldMemory, number>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(readonly limit: number) {}

  /** Bytes the holders hold now. */
  get usedBytes(): number {
    return this.used;
  }

  /**
   * Whether `holder` may hold `bytes` more: if that passes the limit, other holders, least
   * recently used first, give theirs back until it does not.
   */
  grow(holder: HeldMemory, bytes: number): boolean {
    if (this.used + bytes > this.limit) this.makeRoom(holder, bytes);
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    this.held.set(holder, (this.held.get(holder) ?? 0) + bytes);
    return true;
  }

  /** Takes back all `holder` holds. */
  release(holder: HeldMemory): void {
    const bytes = this.held.get(holder);
    if (bytes === undefined) return;
    this.held.delete(holder);
    this.used -= bytes;
    holder.drop();
  }

  /** Takes back, once a second, what holders unused for `idleMs` hold. */
  startSweeping(idleMs: number): void {
    this.idleTicks = Math.max(1, Math.ceil(idleMs / 1000));
    this.sweeper = setInterval(() => {
      this.tick++;
      for (const holder of this.held.keys()) if (this.tick - holder.lastUsed >= this.idleTicks) this.release(holder);
    }, 1000);
    this.sweeper.unref();
  }

  stopSweeping(): void {
    clearInterval(this.sweeper);
  }

  private makeRoom(asking: HeldMemory, bytes: number): void {
    const target = Math.min(this.limit * AFTER_EVICTION, this.limit - bytes);
    const oldestFirst = [...this.held.keys()].filter((h) => h !== asking).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const holder of oldestFirst) {
      if (this.used <= target) return;
      this.release(holder);
    }
  }
}

/** For a log on its own: no limit, nothing swept. */
export const unbounded = (): MemoryBudget => new MemoryBudget(Infinity);
