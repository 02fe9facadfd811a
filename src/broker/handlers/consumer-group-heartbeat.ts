/**
 * ConsumerGroupHeartbeat (KIP-848): a consumer-protocol member joins, heartbeats, reconciles and
 * leaves through it; the group coordinator answers once what it promises is stored. As Kafka's
 * `KafkaApis.handleConsumerGroupHeartbeatRequest`, topics named in the subscription need DESCRIBE.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '../../protocol/messages/consumer-group-heartbeat.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import { defineApi } from '../api-handler.js';
import { mayDo } from '../access.js';

export const consumerGroupHeartbeat = defineApi({
  request: ConsumerGroupHeartbeatRequest,
  response: ConsumerGroupHeartbeatResponse,
  minVersion: 0,
  maxVersion: 1,
  async handle(request, info, broker): Promise<ConsumerGroupHeartbeatResponse> {
    const refused = request.subscribedTopicNames?.find((t) => !mayDo(info.connection, broker, ResourceType.TOPIC, t, AclOperation.DESCRIBE));
    if (refused !== undefined) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        errorMessage: null,
        memberId: null,
        memberEpoch: 0,
        heartbeatIntervalMs: 0,
        assignment: null,
      };
    }
    const outcome = await broker.groups.consumerHeartbeat({
      ...request,
      subscribedTopicRegex: request.subscribedTopicRegex ?? null,
      apiVersion: info.apiVersion,
      clientId: info.clientId ?? '',
      // Kafka shows a member's host as "/<address>", without the port.
      clientHost: `/${info.connection.address}`,
    });
    return { throttleTimeMs: 0, ...outcome };
  },
});
