/** FindCoordinator: this broker coordinates every group and transactional id. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../protocol/messages/find-coordinator.js';
import { defineApi } from '../api-handler.js';
import { NODE_ID } from '../config.js';

export const findCoordinator = defineApi({
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
  minVersion: 0,
  maxVersion: 6,
  handle(request, _info, broker): FindCoordinatorResponse {
    const { host, port } = broker.advertised;
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      nodeId: NODE_ID,
      host,
      port,
      coordinators: request.coordinatorKeys.map((key) => ({ key, nodeId: NODE_ID, host, port, errorCode: ErrorCode.NONE, errorMessage: null })),
    };
  },
});
