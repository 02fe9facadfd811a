/**
 * Exceptions are for I/O only: this tells a failure of the file system under brook (a disk full
 * or gone, a read-only mount, a path taken by something else) from a bug in brook.
 */

/** A write the system took without an error but did not finish: an I/O failure it gives no code for. */
export class IncompleteWriteError extends Error {}

/**
 * Node's system errors name the call that failed (`syscall`: open, write, fsync, …). An error
 * brook wraps round one, as a failed partition's error wraps its write's in `cause`, is I/O too.
 */
export function isIoError(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = err; e instanceof Error && !seen.has(e); e = e.cause) {
    if (e instanceof IncompleteWriteError || typeof (e as NodeJS.ErrnoException).syscall === 'string') return true;
    seen.add(e);
  }
  return false;
}
