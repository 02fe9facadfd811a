/**
 * A partition's appends in the order they arrived, of whichever writer, request or connection,
 * even where one of them waits (a produced batch whose records are decompressed off the event
 * loop): the appends behind it wait too. A partition nothing waits on costs nothing.
 */
const ignore = (): void => {};

export class PartitionTurns {
  /** The last turn queued; gone once it is taken and nothing queued after it. */
  private last: Promise<void> | undefined;

  /** Whether an append still waits for its turn: one arriving now must queue behind it. */
  get waiting(): boolean {
    return this.last !== undefined;
  }

  /**
   * Runs `take` with what `ready` resolves to, once it has and once every turn queued before has
   * been taken. A rejected `ready`, or a `take` that throws, rejects the answer and frees the turn.
   */
  take<T, R>(ready: Promise<T>, take: (value: T) => R): Promise<R> {
    const before = this.last;
    // Handled now: a rejection of `ready` while the turns before still wait is no unhandled rejection.
    ready.catch(ignore);
    const turn = (before === undefined ? ready : before.then(() => ready)).then(take);
    const taken = turn.then(ignore, ignore);
    this.last = taken;
    void taken.then(() => {
      if (this.last === taken) this.last = undefined;
    });
    return turn;
  }
}
