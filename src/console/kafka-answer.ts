/** Kafka API answers, as the console's JSON API reports them. */
import { ErrorCode, errorCodeName } from '../protocol/error-codes.js';
import { ApiError } from './api-input.js';

/** Kafka's error name for `code`. */
export function errorName(code: number): string {
  return errorCodeName(code) ?? String(code);
}

/** Throws an ApiError for a Kafka error code other than NONE: 404 for what does not exist, else 400. */
export function refuseError(code: number, message: string | null): void {
  if (code === ErrorCode.NONE) return;
  const status = code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? 404 : code === ErrorCode.KAFKA_STORAGE_ERROR ? 503 : 400;
  throw new ApiError(status, `${errorName(code)}${message === null || message === '' ? '' : `: ${message}`}`);
}
