/** The broker's identity: its node id (the first of a simulated cluster's), its listener's security protocol, the leader epoch checks. */
import { ErrorCode } from '../protocol/error-codes.js';
import type { BrokerConfig } from '../settings/settings.js';

/** Kafka's name for the listener's security protocol (and so for the listener itself). */
export function securityProtocol(c: BrokerConfig): string {
  const sasl = c.saslUsersFile !== undefined;
  if (c.tls !== undefined) return sasl ? 'SASL_SSL' : 'SSL';
  return sasl ? 'SASL_PLAINTEXT' : 'PLAINTEXT';
}

export const NODE_ID = 1;
/** The metadata quorum's leader epoch: the broker is its only voter from the start. */
export const LEADER_EPOCH = 0;

/**
 * What Kafka answers a request that names the leader epoch it last saw of a partition now at
 * `epoch`, as `Partition.checkCurrentLeaderEpoch` does: -1 names none; an older one is
 * FENCED_LEADER_EPOCH, a newer one (metadata this broker has not got) UNKNOWN_LEADER_EPOCH.
 */
export function leaderEpochError(currentLeaderEpoch: number, epoch: number): number {
  if (currentLeaderEpoch === -1 || currentLeaderEpoch === epoch) return ErrorCode.NONE;
  return currentLeaderEpoch < epoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}
