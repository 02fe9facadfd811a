/**
 * `__consumer_offsets`, where the group coordinator keeps committed offsets: created when first
 * needed, as Kafka's `AutoTopicCreationManager` creates it for FindCoordinator and the group
 * coordinator before its first write, never by a client's Metadata or CreateTopics; its partition
 * count, which places each group (`cluster/placement.ts` `coordinatorPartition`).
 */
import { TopicExistsError, type Storage, type TopicInfo } from '../log/storage.js';
import { OFFSETS_TOPIC } from '../settings/internal-topics.js';
import type { BrokerConfig } from '../settings/settings.js';

/**
 * The partitions groups are spread over: the topic's own once it exists, else
 * `offsets.topic.num.partitions`, as Kafka's `GroupCoordinatorService` takes the count.
 */
export function offsetsPartitionCount(storage: Storage, config: Pick<BrokerConfig, 'offsetsTopicNumPartitions'>): number {
  return storage.topic(OFFSETS_TOPIC)?.partitions ?? config.offsetsTopicNumPartitions;
}

/** The configs Kafka's `GroupCoordinator.groupMetadataTopicConfigs` gives the topic. */
export function offsetsTopicConfigs(config: Pick<BrokerConfig, 'offsetsTopicSegmentBytes'>): Record<string, string> {
  return { 'cleanup.policy': 'compact', 'segment.bytes': String(config.offsetsTopicSegmentBytes), 'compression.type': 'producer' };
}

/** The topic, created first if it is not there yet (a creation under way is waited for). */
export async function ensureOffsetsTopic(
  storage: Storage,
  config: Pick<BrokerConfig, 'offsetsTopicNumPartitions' | 'offsetsTopicSegmentBytes'>,
): Promise<TopicInfo> {
  const existing = storage.topic(OFFSETS_TOPIC);
  if (existing !== undefined) return existing;
  try {
    return await storage.createTopic(OFFSETS_TOPIC, config.offsetsTopicNumPartitions, offsetsTopicConfigs(config));
  } catch (err) {
    if (err instanceof TopicExistsError) return err.existing;
    throw err;
  }
}
