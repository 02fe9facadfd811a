/** ConsumerGroupDescribe (KIP-848): classic groups only, as Kafka 3.9 by default, so each group is UNSUPPORTED_VERSION, as Kafka then answers. */
import { ErrorCode } from '../../protocol/error-codes.js';
import { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../../protocol/messages/consumer-group-describe.js';
import { defineApi } from '../api-handler.js';
import { NOT_ASKED } from '../access.js';

export const consumerGroupDescribe = defineApi({
  request: ConsumerGroupDescribeRequest,
  response: ConsumerGroupDescribeResponse,
  minVersion: 0,
  maxVersion: 0,
  handle(request): ConsumerGroupDescribeResponse {
    return {
      throttleTimeMs: 0,
      groups: request.groupIds.map((groupId) => ({
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        errorMessage: null,
        groupId,
        groupState: '',
        groupEpoch: 0,
        assignmentEpoch: 0,
        assignorName: '',
        members: [],
        authorizedOperations: NOT_ASKED,
      })),
    };
  },
});
