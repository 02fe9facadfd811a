/** A partition's periodic work: fsyncs under a flush interval, checkpoints and retention checks. */
import type { ResolvedLogOptions } from './options.js';

export interface PeriodicWork {
  /** An fsync of what is written (`checkpoint`: with the index, and a recovery point). */
  sync(checkpoint: boolean): void;
  retain(): void;
}

/** Starts the timers `options` ask for, none of which keeps the process alive; returns what stops them. */
export function startTimers(options: ResolvedLogOptions, work: PeriodicWork): () => void {
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, task: () => void): void => {
    const timer = setInterval(task, ms);
    timer.unref();
    timers.push(timer);
  };
  const { flush } = options;
  if (typeof flush === 'object') every(flush.intervalMs, () => work.sync(false));
  every(options.checkpointIntervalMs, () => work.sync(true));
  every(options.retentionCheckIntervalMs, () => work.retain());
  return () => {
    for (const timer of timers) clearInterval(timer);
  };
}
