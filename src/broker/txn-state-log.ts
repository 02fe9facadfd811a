/**
 * `__transaction_state` as the transaction coordinator writes and reads it
 * (broker/coordinator-log.ts), the log's refusals mapped as Kafka's
 * `TransactionStateManager.appendTransactionToLog` maps them.
 */
import type { CoordinatorLog } from '../protocol/coordinator-log.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { TRANSACTION_STATE_TOPIC } from '../settings/internal-topics.js';
import type { BrokerConfig } from '../settings/settings.js';
import { coordinatorLog } from './coordinator-log.js';
import type { Partitions } from './partition.js';

export function txnStateLog(partitions: Partitions, config: BrokerConfig, epochOf: (topic: string, index: number) => number): CoordinatorLog {
  return coordinatorLog(partitions, TRANSACTION_STATE_TOPIC, config, epochOf, stateError);
}

/** The coordinator's answer for the log's refusal: Kafka's mapping, of the codes brook's log gives. */
function stateError(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return errorCode;
  }
}
