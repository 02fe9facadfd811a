/** A compacted topic's cleaning configs: the share of its effective config the cleaner reads. */
import type { TopicConfig } from '../../settings/topic-configs.js';

/**
 * min.compaction.lag.ms: records younger than this stay as written; max.compaction.lag.ms: dirty
 * records older than this are cleaned whatever the dirty ratio; delete.retention.ms: how long a
 * tombstone stays once it is its key's latest; min.cleanable.dirty.ratio: the share of the
 * cleanable bytes not yet cleaned that starts a cleaning.
 */
export type CompactionConfig = Pick<TopicConfig, 'minCompactionLagMs' | 'maxCompactionLagMs' | 'deleteRetentionMs' | 'minCleanableDirtyRatio'>;

/** How a topic is compacted; undefined unless its cleanup.policy has `compact`. */
export function compactionConfig(config: TopicConfig): CompactionConfig | undefined {
  return config.cleanupPolicy.includes('compact') ? config : undefined;
}
