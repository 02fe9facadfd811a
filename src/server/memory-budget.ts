/**
 * Memory for requests received only in part, shared by all connections (Kafka's
 * queued.max.request.bytes). A connection reserves a request's declared size before reading
 * the rest of it; while the budget is spent, connections without a reservation stop reading,
 * and those holding one finish their requests and so free it.
 */
export class MemoryBudget {
  private used = 0;
  private readonly waiting = new Set<() => void>();

  constructor(readonly capacity: number) {}

  get reserved(): number {
    return this.used;
  }

  /** A request larger than the whole budget still gets it when nothing else is reserved. */
  tryReserve(bytes: number): boolean {
    if (this.used > 0 && this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    if (bytes === 0) return;
    this.used -= bytes;
    for (const retry of [...this.waiting]) retry();
  }

  /** Calls `retry` after each release until `cancelWait`. */
  wait(retry: () => void): void {
    this.waiting.add(retry);
  }

  cancelWait(retry: () => void): void {
    this.waiting.delete(retry);
  }
}
