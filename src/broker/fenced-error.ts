import { ErrorCode } from '../protocol/error-codes.js';

/** As Kafka (KIP-588): a client of a version before `since` knows PRODUCER_FENCED as INVALID_PRODUCER_EPOCH. */
export function fencedError(errorCode: number, version: number, since: number): number {
  return errorCode === ErrorCode.PRODUCER_FENCED && version < since ? ErrorCode.INVALID_PRODUCER_EPOCH : errorCode;
}
