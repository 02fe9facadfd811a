/** The one broker's fixed identity in the cluster: its node id and the leader epoch of every partition. */
import { ErrorCode } from '../protocol/error-codes.js';

export const NODE_ID = 1;
/** The only leader epoch there is: one broker leads every partition from the start. */
export const LEADER_EPOCH = 0;

/**
 * What Kafka answers a request that names the leader epoch it last saw: -1 names none; an older
 * one is FENCED_LEADER_EPOCH, a newer one (metadata this broker has not got) UNKNOWN_LEADER_EPOCH.
 */
export function leaderEpochError(currentLeaderEpoch: number): number {
  if (currentLeaderEpoch === -1 || currentLeaderEpoch === LEADER_EPOCH) return ErrorCode.NONE;
  return currentLeaderEpoch < LEADER_EPOCH ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}
