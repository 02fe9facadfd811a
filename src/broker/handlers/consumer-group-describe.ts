/**
 * ConsumerGroupDescribe (KIP-848): each consumer group's epochs, assignor and members, with what
 * each owns and its target, as Kafka's `GroupMetadataManager.consumerGroupDescribe`. A group the
 * client may not describe is GROUP_AUTHORIZATION_FAILED; an unknown or classic one GROUP_ID_NOT_FOUND;
 * one whose members own or are to own a topic the client may not describe is
 * TOPIC_AUTHORIZATION_FAILED, without its members, as Kafka's `KafkaApis.handleConsumerGroupDescribe`.
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

/** A group answered with an error: nothing of it shown. */
function refusedGroup(groupId: string, errorCode: number, errorMessage: string | null): ConsumerGroupDescribeResponseDescribedGroup {
  return {
    errorCode,
    errorMessage,
    groupId,
    groupState: '',
    groupEpoch: -1,
    assignmentEpoch: -1,
    assignorName: '',
    members: [],
    authorizedOperations: NOT_ASKED,
  };
}

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
    const described = request.groupIds.map((groupId): ConsumerGroupDescribeResponseDescribedGroup => {
      if (!mayDo(info.connection, broker, ResourceType.GROUP, groupId, AclOperation.DESCRIBE)) {
        return refusedGroup(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED, null);
      }
      const group = broker.groups.consumerGroup(groupId);
      if (!('groupEpoch' in group)) return refusedGroup(groupId, group.errorCode, group.errorMessage);
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
    // Each topic is asked about once, as Kafka filters the set of them.
    const verdicts = new Map<string, boolean>();
    const mayDescribe = (topic: string): boolean => {
      let allowed = verdicts.get(topic);
      if (allowed === undefined) verdicts.set(topic, (allowed = mayDo(info.connection, broker, ResourceType.TOPIC, topic, AclOperation.DESCRIBE)));
      return allowed;
    };
    const groups = described.map((group) =>
      group.members.every((m) => [...m.assignment.topicPartitions, ...m.targetAssignment.topicPartitions].every((t) => mayDescribe(t.topicName)))
        ? group
        : refusedGroup(group.groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'The group has described topic(s) that the client is not authorized to describe.'),
    );
    return { throttleTimeMs: 0, groups };
  },
});
