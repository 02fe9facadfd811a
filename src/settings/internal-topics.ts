/**
 * Kafka's internal topics, where the coordinators keep their state: the group coordinator's
 * committed offsets and groups, and the transaction coordinator's transaction states. Clients may
 * read them; Kafka's `KafkaApis` and `ReplicaManager` refuse their writes, deletes and growth.
 */
import type { BrokerConfig } from './settings.js';
import type { TopicConfigs } from './topic-configs.js';

export const OFFSETS_TOPIC = '__consumer_offsets';
export const TRANSACTION_STATE_TOPIC = '__transaction_state';

/** The coordinators' topics, by kind of coordinator key. */
export const COORDINATOR_TOPICS = { group: OFFSETS_TOPIC, transaction: TRANSACTION_STATE_TOPIC } as const;

export type InternalTopic = (typeof COORDINATOR_TOPICS)[keyof typeof COORDINATOR_TOPICS];

export function isInternalTopic(name: string): name is InternalTopic {
  return name === OFFSETS_TOPIC || name === TRANSACTION_STATE_TOPIC;
}

/** What an internal topic is created with under settings `c`: its partitions and its own configs. */
export function internalTopicSpec(name: InternalTopic, c: BrokerConfig): { partitions: number; configs: TopicConfigs } {
  // As Kafka's `GroupCoordinatorService.groupMetadataTopicConfigs`.
  if (name === OFFSETS_TOPIC) {
    return {
      partitions: c.offsetsTopicNumPartitions,
      configs: { 'cleanup.policy': 'compact', 'compression.type': 'producer', 'segment.bytes': String(c.offsetsTopicSegmentBytes) },
    };
  }
  // As Kafka's `TransactionStateManager.transactionTopicConfigs`.
  return {
    partitions: c.transactionStateLogNumPartitions,
    configs: {
      'cleanup.policy': 'compact',
      'compression.type': 'uncompressed',
      'min.insync.replicas': String(c.transactionStateLogMinIsr),
      'segment.bytes': String(c.transactionStateLogSegmentBytes),
      'unclean.leader.election.enable': 'false',
    },
  };
}
