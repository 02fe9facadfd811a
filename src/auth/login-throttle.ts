/**
 * Password guesses answered one failed-authentication delay apart per user and per client
 * address, over SASL and in the console alike: each failure holds its user and address for the
 * delay after the answers before it, and any answer, a success included, waits until both are
 * free. Guesses sent in parallel, on many connections or requests, so come back no faster than
 * one a delay, and a right one is not told apart sooner. Kafka's
 * connection.failed.authentication.delay.ms holds each connection alone.
 */

/** Users and addresses held at once; past it, those whose hold ends soonest are let go first. */
const MAX_HELD = 100_000;

export class LoginThrottle {
  /** User or address → when its hold ends, the oldest first. */
  private readonly heldUntil = new Map<string, number>();

  constructor(readonly failedDelayMs: number) {}

  /** How long to wait before answering an attempt just judged, by `user` from `address`. */
  answerDelay(user: string, address: string, failed: boolean): number {
    const now = Date.now();
    const keys = [`user ${user}`, `address ${address}`];
    let at = now;
    for (const key of keys) at = Math.max(at, this.heldUntil.get(key) ?? 0);
    if (failed) {
      at += this.failedDelayMs;
      for (const key of keys) {
        // Taken out and put back, so that the map holds the oldest holds first.
        this.heldUntil.delete(key);
        this.heldUntil.set(key, at);
      }
      this.letGo(now);
    }
    return at - now;
  }

  private letGo(now: number): void {
    for (const [key, until] of this.heldUntil) {
      if (until > now && this.heldUntil.size <= MAX_HELD) return;
      this.heldUntil.delete(key);
    }
  }
}
