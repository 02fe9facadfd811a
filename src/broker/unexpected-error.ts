/**
 * An exception nothing expected is a bug in brook: it is logged as one, with its stack, and the
 * request is answered UNKNOWN_SERVER_ERROR, as Kafka's `Errors.forException` answers an exception
 * it has no error code for.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../protocol/error-codes.js';

export function unexpectedError(logger: Logger, err: unknown, fields: object, what: string): number {
  // pino's err serializer keeps the stack.
  logger.error({ ...fields, err, bug: true }, `bug: ${what}`);
  return ErrorCode.UNKNOWN_SERVER_ERROR;
}
