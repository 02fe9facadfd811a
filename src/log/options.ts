/**
 * Settings of a partition log, named after their Kafka topic configs, and the logger it reports
 * to. Those that are broker settings default as the broker's do; their ranges are checked there.
 */
import type { MemoryBudget } from '../memory/memory-budget.js';
import type { FlushPolicy } from '../settings/kinds.js';
import { SETTINGS } from '../settings/settings.js';
import type { TopicConfig } from '../settings/topic-configs.js';

/** A callback, or a pino-like logger (fields first, as pino takes them). */
export type LogSink =
  | ((msg: string, fields?: Record<string, unknown>) => void)
  | {
      info(fields: Record<string, unknown>, msg: string): void;
      warn(fields: Record<string, unknown>, msg: string): void;
    };

export interface LogOptions {
  /** segment.bytes: a segment rolls before it would pass this size. */
  readonly segmentBytes?: number;
  /** max.message.bytes: the largest batch appended. */
  readonly maxMessageBytes?: number;
  /** segment.ms: a segment rolls once its first batch is this old. */
  readonly segmentMs?: number;
  /** index.interval.bytes: log bytes between two sparse index entries. */
  readonly indexIntervalBytes?: number;
  readonly flush?: FlushPolicy;
  /** retention.ms; -1: unlimited. */
  readonly retentionMs?: number;
  /** retention.bytes; -1: unlimited. */
  readonly retentionBytes?: number;
  /** log.retention.check.interval.ms: also how often idle producers are expired. */
  readonly retentionCheckIntervalMs?: number;
  /** producer.id.expiration.ms: producer state outlives its batches until this long after its last write. */
  readonly producerIdExpirationMs?: number;
  /** How often written data is fsynced in the background and recorded as the point recovery scans from. */
  readonly checkpointIntervalMs?: number;
  /** Memory for the newest batches, so tailing readers need no disk read. */
  readonly tailCacheBytes?: number;
  /** What the tail cache and staging buffers take their memory from, shared by a broker's partitions; unbounded if not given. */
  readonly memory?: MemoryBudget;
  readonly logger?: LogSink;
}

export interface Reporter {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export type ResolvedLogOptions = Required<Omit<LogOptions, 'logger' | 'memory'>> & { readonly report: Reporter; readonly memory?: MemoryBudget };

export function resolveLogOptions(options: LogOptions): ResolvedLogOptions {
  const resolved = {
    segmentBytes: options.segmentBytes ?? SETTINGS.segmentBytes.default,
    maxMessageBytes: options.maxMessageBytes ?? SETTINGS.maxRequestBytes.default,
    segmentMs: options.segmentMs ?? SETTINGS.segmentMs.default,
    indexIntervalBytes: options.indexIntervalBytes ?? 4096,
    flush: options.flush ?? SETTINGS.flush.default,
    retentionMs: options.retentionMs ?? SETTINGS.retentionMs.default,
    retentionBytes: options.retentionBytes ?? SETTINGS.retentionBytes.default,
    retentionCheckIntervalMs: options.retentionCheckIntervalMs ?? SETTINGS.retentionCheckIntervalMs.default,
    producerIdExpirationMs: options.producerIdExpirationMs ?? SETTINGS.producerIdExpirationMs.default,
    checkpointIntervalMs: options.checkpointIntervalMs ?? 60_000,
    tailCacheBytes: options.tailCacheBytes ?? 1024 * 1024,
    memory: options.memory,
    report: reporterOf(options.logger),
  };
  if (!(resolved.indexIntervalBytes >= 1)) throw new RangeError('indexIntervalBytes must be positive');
  return resolved;
}

/** The log options a topic's effective config gives, named alike. */
const TOPIC_LOG_OPTIONS = ['segmentBytes', 'segmentMs', 'retentionMs', 'retentionBytes', 'maxMessageBytes'] as const satisfies readonly (keyof TopicConfig &
  keyof LogOptions)[];

/**
 * The options a topic's partitions run with: `base` with the topic's effective `config`. A
 * cleanup.policy without `delete` keeps every segment whatever the retention, as in Kafka, where
 * only the cleaner removes records from a compacted topic (LogConfig's `delete`).
 */
export function topicLogOptions(base: LogOptions, config: TopicConfig): LogOptions {
  const own = Object.fromEntries(TOPIC_LOG_OPTIONS.map((key) => [key, config[key]]));
  const kept = !config.cleanupPolicy.includes('delete');
  return { ...base, ...own, ...(kept ? { retentionMs: -1, retentionBytes: -1 } : {}) };
}

function reporterOf(sink: LogSink | undefined): Reporter {
  if (sink === undefined) return { info: () => {}, warn: () => {} };
  if (typeof sink === 'function') return { info: sink, warn: sink };
  return {
    info: (msg, fields) => sink.info(fields ?? {}, msg),
    warn: (msg, fields) => sink.warn(fields ?? {}, msg),
  };
}
