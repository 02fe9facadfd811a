/**
 * A partition's housekeeping, one task after another: sealing rolled segments, deleting old ones,
 * storing producer snapshots, recovery points and the log start. A failed critical task (an
 * fsync) fails the partition; others are reported and the partition goes on.
 */
import type { Reporter } from './options.js';

export class BackgroundTasks {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly dir: string,
    private readonly report: () => Reporter,
    private readonly failCritical: (err: Error) => void,
  ) {}

  /** Runs `task` after earlier ones. */
  run(critical: boolean, what: string, task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((err: Error) => {
      if (critical) this.failCritical(err);
      else this.report().warn(`partition log: ${what} failed`, { dir: this.dir, error: err.message });
    });
  }

  /** Runs `task` after earlier ones and answers its outcome to the caller alone. */
  then<T>(task: () => Promise<T>): Promise<T> {
    const done = this.chain.then(task);
    this.chain = done.then(
      () => {},
      () => {},
    );
    return done;
  }

  /** Resolves once every task so far has run. */
  settled(): Promise<void> {
    return this.chain;
  }
}
