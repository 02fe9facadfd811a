/** The Kafka error for a storage change or read that failed. */
import { LogDamageError } from '../log/log-damage.js';
import { ErrorCode } from '../protocol/error-codes.js';

/**
 * KAFKA_STORAGE_ERROR when the file system refused (a full disk, a read-only one, a directory
 * gone): Kafka's answer for a log directory it cannot write, and retriable, where Kafka's
 * controller, which makes these changes there, has no such case; anything else is brook's own
 * failure, UNKNOWN_SERVER_ERROR.
 */
export function storageErrorCode(err: unknown): number {
  return typeof (err as NodeJS.ErrnoException | undefined)?.syscall === 'string' ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.UNKNOWN_SERVER_ERROR;
}

/**
 * CORRUPT_MESSAGE for a stored batch corrupt in itself: Kafka's reader answers it for a length
 * below a batch header, and a consumer checking CRCs (Java's does by default) fails on a batch
 * whose CRC does not match. KAFKA_STORAGE_ERROR for any other failed read, a batch out of place
 * in its file (which Kafka's reader passes over) or the file system refusing.
 */
export function readErrorCode(err: unknown): number {
  return err instanceof LogDamageError && err.corrupt ? ErrorCode.CORRUPT_MESSAGE : ErrorCode.KAFKA_STORAGE_ERROR;
}
