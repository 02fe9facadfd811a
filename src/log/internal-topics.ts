/**
 * The internal topics' creation when first needed, with the partitions and configs Kafka's
 * `AutoTopicCreationManager` gives them, and the partition count their coordinators hash keys by.
 */
import { internalTopicSpec, type InternalTopic } from '../settings/internal-topics.js';
import type { BrokerConfig } from '../settings/settings.js';
import { TopicExistsError, type Storage, type TopicInfo } from './storage.js';

/**
 * The internal topic `name`, created with its spec under settings `c` if it does not exist yet;
 * if another caller creates it meanwhile, that topic. Throws what `Storage.createTopic` throws on I/O.
 */
export async function ensureInternalTopic(storage: Storage, name: InternalTopic, c: BrokerConfig): Promise<TopicInfo> {
  const existing = storage.topic(name);
  if (existing !== undefined) return existing;
  const { partitions, configs } = internalTopicSpec(name, c);
  try {
    return await storage.createTopic(name, partitions, configs);
  } catch (err) {
    if (err instanceof TopicExistsError) return err.existing;
    throw err;
  }
}

/**
 * The partitions a coordinator hashes its keys over: the topic's own once it exists (a client
 * may have created it, or an earlier start with other settings), else the count it will be
 * created with; as Kafka's `BrokerMetadataPublisher` starts its coordinators.
 */
export function internalTopicPartitions(storage: Storage, name: InternalTopic, c: BrokerConfig): number {
  return storage.topic(name)?.partitions ?? internalTopicSpec(name, c).partitions;
}
