/** AddRaftVoter: brook's quorum is static (kraft.version 0), so voters cannot be added; see raft-voters.ts. */
import { AddRaftVoterRequest, AddRaftVoterResponse } from '../../protocol/messages/add-raft-voter.js';
import { defineApi } from '../api-handler.js';
import { securityProtocol } from '../config.js';
import { voterChangeRefused } from '../raft-voters.js';

export const addRaftVoter = defineApi({
  request: AddRaftVoterRequest,
  response: AddRaftVoterResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request, _info, broker): AddRaftVoterResponse {
    const listener = securityProtocol(broker.config);
    return voterChangeRefused(request, broker.clusterId, 'Add', () =>
      request.listeners.some((l) => l.name === listener) ? undefined : `Add voter request didn't include the endpoint for the default listener ${listener}`,
    );
  },
});
