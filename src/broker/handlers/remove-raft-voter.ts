/** RemoveRaftVoter: brook's quorum is static (kraft.version 0), so voters cannot be removed; see raft-voters.ts. */
import { RemoveRaftVoterRequest, RemoveRaftVoterResponse } from '../../protocol/messages/remove-raft-voter.js';
import { defineApi } from '../api-handler.js';
import { voterChangeRefused } from '../raft-voters.js';

export const removeRaftVoter = defineApi({
  request: RemoveRaftVoterRequest,
  response: RemoveRaftVoterResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request, _info, broker): RemoveRaftVoterResponse {
    return voterChangeRefused(request, broker.clusterId, 'Remove');
  },
});
