/** FindCoordinator: the node coordinating each group or transactional id the client may describe (one node: this one). */
import { ErrorCode } from '../../protocol/error-codes.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../protocol/messages/find-coordinator.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';
import type { BrokerContext } from '../broker-context.js';
import { ensureOffsetsTopic } from '../offsets-topic.js';

export const findCoordinator = defineApi({
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
  minVersion: 0,
  maxVersion: 6,
  async handle(request, { apiVersion, connection }, broker): Promise<FindCoordinatorResponse> {
    const transactional = request.keyType === TRANSACTION_KEY;
    const keys = apiVersion < 4 ? [request.key] : request.coordinatorKeys;
    const allowed = keys.map((key) =>
      mayDo(connection, broker, transactional ? ResourceType.TRANSACTIONAL_ID : ResourceType.GROUP, key, AclOperation.DESCRIBE),
    );
    // As Kafka's `KafkaApis.getCoordinator`, a group's lookup creates the offsets topic if it is not there yet.
    const unavailable = !transactional && allowed.includes(true) && !(await offsetsTopicReady(broker));
    const found = (key: string, i: number) => {
      if (allowed[i]! && unavailable) return { nodeId: -1, host: '', port: -1, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null };
      if (allowed[i]!) return { ...coordinator(broker, transactional, key), errorCode: ErrorCode.NONE, errorMessage: null };
      const errorCode = transactional ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : ErrorCode.GROUP_AUTHORIZATION_FAILED;
      return { nodeId: -1, host: '', port: -1, errorCode, errorMessage: null };
    };
    // Below v4 one key, the request's own; from v4 several.
    if (apiVersion < 4) return { throttleTimeMs: 0, ...found(request.key, 0), coordinators: [] };
    const coordinators = request.coordinatorKeys.map((key, i) => ({ key, ...found(key, i) }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, ...broker.cluster.address(broker.nodeId), coordinators };
  },
});

/** Where the key's coordinator is reached: this node's own address when it is the one. */
function coordinator(broker: BrokerContext, transactional: boolean, key: string): { nodeId: number; host: string; port: number } {
  const nodeId = broker.cluster.coordinator(transactional ? 'transaction' : 'group', key);
  return nodeId === broker.nodeId ? { nodeId, ...broker.advertised } : broker.cluster.address(nodeId);
}

/** Whether `__consumer_offsets` is there, created now if need be; a failed creation is logged. */
async function offsetsTopicReady(broker: BrokerContext): Promise<boolean> {
  try {
    await ensureOffsetsTopic(broker.storage, broker.config);
    return true;
  } catch (err) {
    broker.logger.error({ err }, 'the offsets topic could not be created');
    return false;
  }
}

/** Kafka's CoordinatorType of a transactional id (0: a group). */
const TRANSACTION_KEY = 1;
