/** The Kafka error for a storage change or read that failed. */
import type { Logger } from 'pino';
import { isIoError } from '../files/io-error.js';
import { LogDamageError } from '../log/log-damage.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { unexpectedError } from './unexpected-error.js';

/**
 * Logs a storage change or append that threw, and gives its Kafka error: KAFKA_STORAGE_ERROR when
 * the file system refused (a full disk, a read-only one, a directory gone), Kafka's answer for a
 * log directory it cannot write, and retriable, where Kafka's controller, which makes topic
 * changes there, has no such case; any other exception is a bug, UNKNOWN_SERVER_ERROR, as Kafka's
 * `ReplicaManager.appendToLocalLog` logs and answers any exception it does not expect.
 */
export function storageFailure(logger: Logger, err: unknown, fields: object, what: string): number {
  if (!isIoError(err)) return unexpectedError(logger, err, fields, what);
  logger.error({ ...fields, err }, what);
  return ErrorCode.KAFKA_STORAGE_ERROR;
}

/**
 * Logs a read of the log that threw, and gives its Kafka error: CORRUPT_MESSAGE for a stored batch
 * corrupt in itself (Kafka's reader answers it for a length below a batch header, and a consumer
 * checking CRCs, as Java's does by default, fails on a batch whose CRC does not match);
 * KAFKA_STORAGE_ERROR for other damage (a batch out of place in its file, which Kafka's reader
 * passes over) or the file system refusing. Those are not logged again while `repeated` (the
 * partition's last read failed too). Any other exception is a bug, UNKNOWN_SERVER_ERROR, always
 * logged with its stack.
 */
export function readFailure(logger: Logger, err: unknown, fields: object, what: string, repeated = false): number {
  if (!(err instanceof LogDamageError) && !isIoError(err)) return unexpectedError(logger, err, fields, what);
  if (!repeated) logger.error({ ...fields, err }, what);
  return err instanceof LogDamageError && err.corrupt ? ErrorCode.CORRUPT_MESSAGE : ErrorCode.KAFKA_STORAGE_ERROR;
}
