/** A compacted topic's cleaning configs, from its own configs and Kafka's defaults. */
import { configNumber, listItems, type TopicConfigs } from '../topic-config.js';

export interface CompactionConfig {
  /** min.compaction.lag.ms: records younger than this stay as written. */
  readonly minCompactionLagMs: number;
  /** max.compaction.lag.ms: dirty records older than this are cleaned whatever the dirty ratio. */
  readonly maxCompactionLagMs: number;
  /** delete.retention.ms: how long a tombstone stays once it is its key's latest. */
  readonly deleteRetentionMs: number;
  /** min.cleanable.dirty.ratio: the share of the cleanable bytes not yet cleaned that starts a cleaning. */
  readonly minCleanableDirtyRatio: number;
}

const KAFKA_DEFAULTS: Readonly<Record<string, string>> = {
  'min.compaction.lag.ms': '0',
  'max.compaction.lag.ms': '9223372036854775807',
  'delete.retention.ms': '86400000',
  'min.cleanable.dirty.ratio': '0.5',
};

/** How a topic is compacted; undefined unless its cleanup.policy has `compact`. */
export function compactionConfig(configs: TopicConfigs): CompactionConfig | undefined {
  if (!listItems(configs['cleanup.policy'] ?? 'delete').includes('compact')) return undefined;
  const value = (name: string): string => configs[name] ?? KAFKA_DEFAULTS[name]!;
  return {
    minCompactionLagMs: configNumber(value('min.compaction.lag.ms')),
    maxCompactionLagMs: configNumber(value('max.compaction.lag.ms')),
    deleteRetentionMs: configNumber(value('delete.retention.ms')),
    minCleanableDirtyRatio: Number(value('min.cleanable.dirty.ratio')),
  };
}
