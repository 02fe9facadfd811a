/** The Kafka error for a storage change that failed. */
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
