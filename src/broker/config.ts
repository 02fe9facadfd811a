/** The one broker's fixed identity in the cluster: its node id and the leader epoch of every partition. */
import { ErrorCode } from '../protocol/error-codes.js';
import type { BrokerConfig } from '../settings/settings.js';

/** Kafka's name for the listener's security protocol (and so for the listener itself). */
export function securityProtocol(c: BrokerConfig): string {
  const sasl = c.saslUsersFile !== undefined;
  if (c.tls !== undefined) return sasl ? 'SASL_SSL' : 'SSL';
  return sasl ? 'SASL_PLAINTEXT' : 'PLAINTEXT';
}

export const NODE_ID = 1;
/** The only leader epoch there is: one broker leads every partition from the start. */
export const LEADER_EPOCH = 0;

/**
 * What Kafka's `Partition.checkCurrentLeaderEpoch` answers a request that names the leader epoch it last saw: -1 names none; an older
 * one is FENCED_LEADER_EPOCH, a newer one (metadata this broker has not got) UNKNOWN_LEADER_EPOCH.
 */
export function leaderEpochError(currentLeaderEpoch: number): number {
  if (currentLeaderEpoch === -1 || currentLeaderEpoch === LEADER_EPOCH) return ErrorCode.NONE;
  return currentLeaderEpoch < LEADER_EPOCH ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}

/** Kafka's UNDEFINED_EPOCH, and the offset answered with it. */
const UNDEFINED_EPOCH = -1;

/**
 * Kafka's leader epoch cache answering where `epoch` ended, for a log whose only epoch,
 * LEADER_EPOCH, began at its log start: the current epoch ends at the log end; an epoch it does
 * not know after it (or -1) is undefined; one before every epoch ends where the first began.
 */
export function epochEndOffset(epoch: number, logStartOffset: number, logEndOffset: number): { leaderEpoch: number; endOffset: number } {
  if (epoch === LEADER_EPOCH) return { leaderEpoch: LEADER_EPOCH, endOffset: logEndOffset };
  if (epoch === UNDEFINED_EPOCH || epoch > LEADER_EPOCH) return { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH };
  return { leaderEpoch: epoch, endOffset: logStartOffset };
}
