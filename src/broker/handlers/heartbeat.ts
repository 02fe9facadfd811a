/** Heartbeat: keeps a member's session; REBALANCE_IN_PROGRESS tells it to rejoin. */
import { HeartbeatRequest, HeartbeatResponse } from '../../protocol/messages/heartbeat.js';
import { defineApi } from '../api-handler.js';

export const heartbeat = defineApi({
  request: HeartbeatRequest,
  response: HeartbeatResponse,
  minVersion: 0,
  maxVersion: 4,
  handle(request, _info, broker): HeartbeatResponse {
    return { throttleTimeMs: 0, errorCode: broker.groups.heartbeat(request) };
  },
});
