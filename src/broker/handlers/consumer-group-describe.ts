/**
 * ConsumerGroupDescribe (KIP-848): each consumer group's epochs, assignor and members, with what
 * each owns and its target, as Kafka's `GroupMetadataManager.consumerGroupDescribe`. A group the
 * client may not describe is GROUP_AUTHORIZATION_FAILED; an unknown or classic one GROUP_ID_NOT_FOUND.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import {
  ConsumerGroupDescribeRequest,
  ConsumerGroupDescribeResponse,
  type ConsumerGroupDescribeResponseAssignment,
  type ConsumerGroupDescribeResponseDescribedGroup,
} from '../../protocol/messages/consumer-group-describe.js';
import { AclOperation, ResourceType } from '../../acl/acl-binding.js';
import type { TopicPartitions } from '../../groups/assignors.js';
import { defineApi } from '../api-handler.js';
import { authorizedOperations, mayDo, NOT_ASKED } from '../access.js';
import { topicImage } from '../topic-image.js';

/** Kafka's member types: a member of the classic protocol in a consumer group, and one of the consumer protocol. */
const CLASSIC_MEMBER = 0;
const CONSUMER_MEMBER = 1;

export const consumerGroupDescribe = defineApi({
  request: ConsumerGroupDescribeRequest,
  response: ConsumerGroupDescribeResponse,
  minVersion: 0,
  maxVersion: 1,
  handle(request, info, broker): ConsumerGroupDescribeResponse {
    const names = new Map([...topicImage(broker.storage).byName].map(([name, t]) => [t.topicId, name]));
    const assignment = (partitions: TopicPartitions): ConsumerGroupDescribeResponseAssignment => ({
      topicPartitions: [...partitions]
        .filter(([, set]) => set.size > 0)
        .map(([topicId, set]) => ({ topicId, topicName: names.get(topicId) ?? '', partitions: [...set].sort((a, b) => a - b) })),
    });
    const groups = request.groupIds.map((groupId): ConsumerGroupDescribeResponseDescribedGroup => {
      const empty = { groupId, groupState: '', groupEpoch: -1, assignmentEpoch: -1, assignorName: '', members: [], authorizedOperations: NOT_ASKED };
      if (!mayDo(info.connection, broker, ResourceType.GROUP, groupId, AclOperation.DESCRIBE)) {
        return { ...empty, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null };
      }
      const group = broker.groups.consumerGroup(groupId);
      if (!('groupEpoch' in group)) return { ...empty, ...group };
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        groupId,
        groupState: group.state(),
        groupEpoch: group.groupEpoch,
        assignmentEpoch: group.assignmentEpoch,
        assignorName: broker.groups.consumer.assignorOf(group),
        members: [...group.members.values()].map((m) => ({
          memberId: m.memberId,
          instanceId: m.instanceId,
          rackId: m.rackId,
          memberEpoch: m.memberEpoch,
          clientId: m.clientId,
          clientHost: m.clientHost,
          subscribedTopicNames: m.subscribedTopicNames,
          subscribedTopicRegex: m.subscribedTopicRegex,
          assignment: assignment(m.assigned),
          targetAssignment: assignment(group.target.get(m.memberId) ?? new Map()),
          memberType: m.classic === null ? CONSUMER_MEMBER : CLASSIC_MEMBER,
        })),
        authorizedOperations: authorizedOperations(request.includeAuthorizedOperations, info.connection, broker, ResourceType.GROUP, groupId),
      };
    });
    return { throttleTimeMs: 0, groups };
  },
});
