/**
 * ConsumerGroupHeartbeat (KIP-848): brook's group coordinator speaks the classic protocol only,
 * as Kafka 3.9's does by default, and answers it as Kafka's `KafkaApis.handleConsumerGroupHeartbeat` then does: UNSUPPORTED_VERSION.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../../protocol/messages/consumer-group-heartbeat.js';
import { defineApi } from '../api-handler.js';

export const consumerGroupHeartbeat = defineApi({
  request: ConsumerGroupHeartbeatRequest,
  response: ConsumerGroupHeartbeatResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(): ConsumerGroupHeartbeatResponse {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.UNSUPPORTED_VERSION,
      errorMessage: null,
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    };
  },
});
