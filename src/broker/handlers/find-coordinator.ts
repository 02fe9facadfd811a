/**
 * FindCoordinator: the node coordinating each group or transactional id the client may describe
 * (one node: this one). As Kafka's `KafkaApis.handleFindCoordinatorRequest`, the coordinators'
 * internal topic is created the first time a key it would hold is looked up.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../protocol/messages/find-coordinator.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { isIoError } from '../../files/io-error.js';
import { ensureInternalTopic } from '../../log/internal-topics.js';
import { COORDINATOR_TOPICS } from '../../settings/internal-topics.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';
import type { BrokerContext } from '../broker-context.js';

type Found = { nodeId: number; host: string; port: number; errorCode: number; errorMessage: string | null };

export const findCoordinator = defineApi({
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
  minVersion: 0,
  maxVersion: 6,
  async handle(request, { apiVersion, connection }, broker): Promise<FindCoordinatorResponse> {
    const kind = request.keyType === TRANSACTION_KEY ? 'transaction' : 'group';
    const found = async (key: string): Promise<Found> => {
      const allowed = mayDo(connection, broker, kind === 'transaction' ? ResourceType.TRANSACTIONAL_ID : ResourceType.GROUP, key, AclOperation.DESCRIBE);
      if (!allowed) {
        const errorCode = kind === 'transaction' ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : ErrorCode.GROUP_AUTHORIZATION_FAILED;
        return { nodeId: -1, host: '', port: -1, errorCode, errorMessage: null };
      }
      if (!(await internalTopicReady(broker, kind)))
        return { nodeId: -1, host: '', port: -1, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null };
      return { ...coordinator(broker, kind, key), errorCode: ErrorCode.NONE, errorMessage: null };
    };
    // Below v4 one key, the request's own; from v4 several.
    if (apiVersion < 4) return { throttleTimeMs: 0, ...(await found(request.key)), coordinators: [] };
    const coordinators = await Promise.all(request.coordinatorKeys.map(async (key) => ({ key, ...(await found(key)) })));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, ...broker.cluster.address(broker.nodeId), coordinators };
  },
});

/**
 * Creates the coordinators' topic if it is missing; false if the disk refused (logged), answered
 * COORDINATOR_NOT_AVAILABLE, which clients retry, as Kafka answers while the topic is created.
 */
async function internalTopicReady(broker: BrokerContext, kind: keyof typeof COORDINATOR_TOPICS): Promise<boolean> {
  const topic = COORDINATOR_TOPICS[kind];
  try {
    await ensureInternalTopic(broker.storage, topic, broker.config);
    return true;
  } catch (err) {
    if (!isIoError(err)) throw err;
    broker.logger.error({ err, topic }, 'creating an internal topic failed');
    return false;
  }
}

/** Where the key's coordinator is reached: this node's own address when it is the one. */
function coordinator(broker: BrokerContext, kind: keyof typeof COORDINATOR_TOPICS, key: string): { nodeId: number; host: string; port: number } {
  const nodeId = broker.cluster.coordinator(kind, key);
  return nodeId === broker.nodeId ? { nodeId, ...broker.advertised } : broker.cluster.address(nodeId);
}

/** Kafka's CoordinatorType of a transactional id (0: a group). */
const TRANSACTION_KEY = 1;
