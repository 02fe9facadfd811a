/**
 * The cleaner's I/O limit (log.cleaner.io.max.bytes.per.second), as Kafka's Throttler: it
 * counts the bytes the cleaner reads and writes, and every check interval, if their rate was
 * above the limit, waits until it is not. The clock and the wait are given, so the rule can be
 * checked without real time.
 */
export interface ThrottleClock {
  readonly now: () => number;
  /** Waits this many ms; resolves early, with no harm, when the cleaning stops. */
  readonly sleep: (ms: number) => Promise<unknown>;
}

/** Kafka's LogCleaner checks its throttler every 300 ms. */
export const THROTTLE_CHECK_MS = 300;

export class IoThrottle {
  private periodStart: number;
  private observed = 0;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly clock: ThrottleClock,
  ) {
    this.periodStart = clock.now();
  }

  /** Counts `bytes` of I/O; waits when the period's rate is above the limit. */
  async maybeThrottle(bytes: number): Promise<void> {
    this.observed += bytes;
    const elapsed = this.clock.now() - this.periodStart;
    if (elapsed < THROTTLE_CHECK_MS) return;
    const due = (this.observed / this.bytesPerSecond) * 1000;
    if (due > elapsed) await this.clock.sleep(due - elapsed);
    this.periodStart = this.clock.now();
    this.observed = 0;
  }
}
