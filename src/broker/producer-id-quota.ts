/**
 * How many new producer ids each principal may be handed in the last hour (KIP-936's proposed
 * `producer_ids_rate`): a client that makes a new producer per message or restarts in a loop is
 * refused ids before its producer states crowd every partition it writes. Counted per minute, so
 * a principal's count takes 60 numbers whatever its rate; a principal idle for an hour is forgotten.
 */

const BUCKET_MS = 60_000;
const BUCKETS = 60;
export const WINDOW_MS = BUCKET_MS * BUCKETS;

interface Counts {
  /** Ids handed out in each minute of the window, by minute number modulo BUCKETS. */
  readonly perMinute: number[];
  /** The newest minute counted; older minutes of perMinute are within the window up to BUCKETS back. */
  minute: number;
  total: number;
}

export class ProducerIdQuota {
  private readonly byPrincipal = new Map<string, Counts>();
  private sweptMinute = 0;

  constructor(private readonly perHour: number) {}

  /**
   * Takes one id for `principal` at `now` (ms): 0 when it may have one, else how many ms until
   * it may, when the oldest minute still counted leaves the window.
   */
  take(principal: string, now: number): number {
    const minute = Math.floor(now / BUCKET_MS);
    this.sweep(minute);
    let counts = this.byPrincipal.get(principal);
    if (counts === undefined) this.byPrincipal.set(principal, (counts = { perMinute: new Array<number>(BUCKETS).fill(0), minute, total: 0 }));
    advance(counts, minute);
    if (counts.total < this.perHour) {
      counts.perMinute[minute % BUCKETS]!++;
      counts.total++;
      return 0;
    }
    // The oldest minute still holding a count (there is one: the total is at least 1) leaves the window first.
    let oldest = minute - BUCKETS + 1;
    while (counts.perMinute[oldest % BUCKETS] === 0) oldest++;
    return (oldest + BUCKETS) * BUCKET_MS - now;
  }

  /** Principals counted: those handed an id within the last hour. */
  get size(): number {
    return this.byPrincipal.size;
  }

  /** At most once a minute, forgets principals with nothing left in the window. */
  private sweep(minute: number): void {
    if (minute === this.sweptMinute) return;
    this.sweptMinute = minute;
    for (const [principal, counts] of this.byPrincipal) if (minute - counts.minute >= BUCKETS) this.byPrincipal.delete(principal);
  }
}

/** Moves the window to `minute`, emptying the minutes that left it. */
function advance(counts: Counts, minute: number): void {
  for (let m = counts.minute + 1; m <= Math.min(minute, counts.minute + BUCKETS); m++) {
    counts.total -= counts.perMinute[m % BUCKETS]!;
    counts.perMinute[m % BUCKETS] = 0;
  }
  counts.minute = Math.max(counts.minute, minute);
}
