/**
 * UnregisterBroker, as Kafka's controller answers it (`ClusterControlManager.unregisterBroker`): node 1 is registered, and being alive it
 * registers again at once, so unregistering it changes nothing; other ids are not registered.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { UnregisterBrokerRequest, UnregisterBrokerResponse } from '../../protocol/messages/unregister-broker.js';
import { defineApi } from '../api-handler.js';
import { NODE_ID } from '../config.js';

export const unregisterBroker = defineApi({
  request: UnregisterBrokerRequest,
  response: UnregisterBrokerResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request): UnregisterBrokerResponse {
    if (request.brokerId === NODE_ID) return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null };
    return { throttleTimeMs: 0, errorCode: ErrorCode.BROKER_ID_NOT_REGISTERED, errorMessage: `Broker ID ${request.brokerId} is not currently registered` };
  },
});
