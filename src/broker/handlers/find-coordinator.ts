/** FindCoordinator: this broker coordinates every group and transactional id the client may describe. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../protocol/messages/find-coordinator.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';
import { NODE_ID } from '../config.js';

export const findCoordinator = defineApi({
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
  minVersion: 0,
  maxVersion: 6,
  handle(request, { apiVersion, connection }, broker): FindCoordinatorResponse {
    const { host, port } = broker.advertised;
    const found = (key: string) => {
      const transactional = request.keyType === TRANSACTION_KEY;
      const allowed = mayDo(connection, broker, transactional ? ResourceType.TRANSACTIONAL_ID : ResourceType.GROUP, key, AclOperation.DESCRIBE);
      if (allowed) return { nodeId: NODE_ID, host, port, errorCode: ErrorCode.NONE, errorMessage: null };
      const errorCode = transactional ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : ErrorCode.GROUP_AUTHORIZATION_FAILED;
      return { nodeId: -1, host: '', port: -1, errorCode, errorMessage: null };
    };
    // Below v4 one key, the request's own; from v4 several.
    if (apiVersion < 4) return { throttleTimeMs: 0, ...found(request.key), coordinators: [] };
    const coordinators = request.coordinatorKeys.map((key) => ({ key, ...found(key) }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, nodeId: NODE_ID, host, port, coordinators };
  },
});

/** Kafka's CoordinatorType of a transactional id (0: a group). */
const TRANSACTION_KEY = 1;
