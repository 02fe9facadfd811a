/**
 * Memory for requests received only in part, shared by all connections (Kafka's
 * queued.max.request.bytes). Each connection is charged the memory it really holds for them,
 * which grows with the bytes that arrive: spending the budget takes sending that many bytes, not
 * declaring them. While it is spent, a connection whose request needs more memory stops reading;
 * one at a time is let past it, so that its request completes and frees memory, where
 * connections each part way through a large request would otherwise wait on each other for ever.
 */
export class MemoryBudget {
  private used = 0;
  /** The connection let past the spent budget, until it holds less: one of its requests completed. */
  private overdrawn: object | undefined;
  private readonly waiting = new Set<() => void>();

  constructor(readonly capacity: number) {}

  /** `holder`, charged `before`, now holds `bytes`: charged whatever the budget, as they have arrived already. */
  recharge(holder: object, before: number, bytes: number): void {
    this.used += bytes - before;
    if (bytes >= before) return;
    if (this.overdrawn === holder) this.overdrawn = undefined;
    for (const retry of [...this.waiting]) retry();
  }

  /** Whether `holder` may take more memory for the request it is receiving. */
  mayGrow(holder: object): boolean {
    if (this.used < this.capacity || this.overdrawn === holder) return true;
    if (this.overdrawn !== undefined) return false;
    this.overdrawn = holder;
    return true;
  }

  /** Calls `retry` whenever memory is given back, until `cancelWait`. */
  wait(retry: () => void): void {
    this.waiting.add(retry);
  }

  cancelWait(retry: () => void): void {
    this.waiting.delete(retry);
  }
}
