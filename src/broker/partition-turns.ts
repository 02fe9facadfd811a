/**
 * Each partition's produced batches reach its log in the order they arrived, of whichever
 * request or connection, even where one of them waits for its records to be decompressed off the
 * event loop: the batches behind it wait too. A partition nothing waits on costs nothing.
 */
import type { PartitionLog } from '../log/partition-log.js';

/** The last turn queued on each partition; gone once it is taken and nothing queued after it. */
const lastTurn = new WeakMap<PartitionLog, Promise<void>>();

const ignore = (): void => {};

/** Whether a batch of `log` still waits for its turn: a batch arriving now must queue behind it. */
export function turnsWaiting(log: PartitionLog): boolean {
  return lastTurn.has(log);
}

/**
 * Runs `take` with what `ready` resolves to, once it has and once every turn queued on `log`
 * before has been taken. A rejected `ready`, or a `take` that throws, rejects the answer and
 * frees the turn.
 */
export function takeTurn<T, R>(log: PartitionLog, ready: Promise<T>, take: (value: T) => R): Promise<R> {
  const before = lastTurn.get(log);
  // Handled now: a rejection of `ready` while the turns before still wait is no unhandled rejection.
  ready.catch(ignore);
  const turn = (before === undefined ? ready : before.then(() => ready)).then(take);
  const taken = turn.then(ignore, ignore);
  lastTurn.set(log, taken);
  void taken.then(() => {
    if (lastTurn.get(log) === taken) lastTurn.delete(log);
  });
  return turn;
}
