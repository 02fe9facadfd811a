/** Long-polling fetches wait here until one of their partitions gets new data or time runs out. */

type Wake = () => void;

export class PartitionWaiters {
  private readonly waiting = new Map<string, Set<Wake>>();
  private closed = false;

  static key(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  /** Whether a fetch may wait: not once the broker is closing, when every fetch is answered at once. */
  get open(): boolean {
    return !this.closed;
  }

  /** Resolves when any of `keys` is notified, after `timeoutMs`, or when closed. */
  wait(keys: readonly string[], timeoutMs: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const wake: Wake = () => {
        clearTimeout(timer);
        for (const key of keys) this.remove(key, wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      for (const key of keys) {
        let set = this.waiting.get(key);
        if (set === undefined) this.waiting.set(key, (set = new Set()));
        set.add(wake);
      }
    });
  }

  /** Wakes the fetches waiting on the partition; on the produce path, so no key is made while none wait. */
  notify(topic: string, partition: number): void {
    if (this.waiting.size === 0) return;
    const set = this.waiting.get(PartitionWaiters.key(topic, partition));
    if (set === undefined) return;
    for (const wake of [...set]) wake();
  }

  /** Answers every waiting fetch now, and every later one without waiting: the broker is closing. */
  close(): void {
    this.closed = true;
    for (const set of [...this.waiting.values()]) for (const wake of [...set]) wake();
  }

  private remove(key: string, wake: Wake): void {
    const set = this.waiting.get(key);
    if (set === undefined) return;
    set.delete(wake);
    if (set.size === 0) this.waiting.delete(key);
  }
}
