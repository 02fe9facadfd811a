/**
 * AddRaftVoter and RemoveRaftVoter, as a Kafka controller with a static quorum answers them:
 * brook's quorum is node 1 alone and kraft.version is 0, which cannot change voters (KIP-853).
 */
import { ZERO_UUID } from '../protocol/primitives/reader.js';
import { ErrorCode } from '../protocol/error-codes.js';

export interface VoterChange {
  readonly clusterId: string | null;
  readonly voterId: number;
  readonly voterDirectoryId: string;
}

/** Kafka's checks, in its order and words; `extra` adds the request's own check of its contents. */
export function voterChangeRefused(
  change: VoterChange,
  clusterId: string,
  request: 'Add' | 'Remove',
  extra?: () => string | undefined,
): { throttleTimeMs: number; errorCode: number; errorMessage: string } {
  const refused = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, errorCode, errorMessage });
  if (change.clusterId !== null && change.clusterId !== clusterId) {
    return refused(ErrorCode.INCONSISTENT_CLUSTER_ID, `The given id "${change.clusterId}" doesn't match the cluster id "${clusterId}"`);
  }
  if (change.voterId < 0 || change.voterDirectoryId === ZERO_UUID)
    return refused(ErrorCode.INVALID_REQUEST, `${request} voter request didn't include a valid voter`);
  const invalid = extra?.();
  if (invalid !== undefined) return refused(ErrorCode.INVALID_REQUEST, invalid);
  const action = request === 'Add' ? 'adding' : 'removing';
  return refused(ErrorCode.UNSUPPORTED_VERSION, `Cluster doesn't support ${action} voter because the kraft.version feature is 0`);
}
