/**
 * A topic's own configs, by Kafka's names: those it was created or altered with, kept in
 * metadata.json with the topic. Each is checked against Kafka's type for it (and, for a config
 * whose default is a broker setting, that setting's range); the log's share of them becomes the
 * options its partitions run with.
 */
import type { KafkaType } from '../settings/kinds.js';
import { ANY } from '../settings/kinds.js';
import { OPTIONS, TOPIC_CONFIG_SETTINGS } from '../settings/settings.js';
import type { LogOptions } from './options.js';

/** Config name to value: only the configs the topic has of its own. */
export type TopicConfigs = Readonly<Record<string, string>>;

/** Kafka's topic configs (TopicConfig, 3.x and 4.0) and the type of each: those of no setting here, the rest from the settings. */
const KINDS: Readonly<Record<string, KafkaType>> = {
  'cleanup.policy': { listOf: ['compact', 'delete'] },
  'compression.type': { oneOf: ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] },
  'compression.gzip.level': 'int',
  'compression.lz4.level': 'int',
  'compression.zstd.level': 'int',
  'delete.retention.ms': 'long',
  'file.delete.delay.ms': 'long',
  'flush.messages': 'long',
  'flush.ms': 'long',
  'follower.replication.throttled.replicas': 'string',
  'index.interval.bytes': 'int',
  'leader.replication.throttled.replicas': 'string',
  'local.retention.bytes': 'long',
  'local.retention.ms': 'long',
  'max.compaction.lag.ms': 'long',
  'message.downconversion.enable': 'boolean',
  'message.format.version': 'string',
  'message.timestamp.difference.max.ms': 'long',
  'min.cleanable.dirty.ratio': 'double',
  'min.compaction.lag.ms': 'long',
  'min.insync.replicas': 'int',
  preallocate: 'boolean',
  'remote.log.copy.disable': 'boolean',
  'remote.log.delete.on.disable': 'boolean',
  'remote.storage.enable': 'boolean',
  'segment.index.bytes': 'int',
  'segment.jitter.ms': 'long',
  'unclean.leader.election.enable': 'boolean',
  ...Object.fromEntries([...TOPIC_CONFIG_SETTINGS].flatMap(([name, s]) => (s.kind.kafkaType === undefined ? [] : [[name, s.kind.kafkaType]]))),
};

const INTEGER = /^[+-]?\d+$/;

function fits(kind: KafkaType, value: string): boolean {
  if (kind === 'int') return INTEGER.test(value) && Number(value) >= -(2 ** 31) && Number(value) < 2 ** 31;
  if (kind === 'long') return INTEGER.test(value) && BigInt.asIntN(64, BigInt(value)) === BigInt(value);
  if (kind === 'double') return value !== '' && Number.isFinite(Number(value));
  if (kind === 'boolean') return /^(true|false)$/i.test(value);
  if (kind === 'string') return true;
  if ('oneOf' in kind) return kind.oneOf.includes(value);
  return listItems(value).every((item) => kind.listOf.includes(item));
}

/** The items of a list config's value. */
export function listItems(value: string): string[] {
  return value.split(',').map((item) => item.trim());
}

/** Whether the config is one of Kafka's topic configs. */
export function isTopicConfig(name: string): boolean {
  return KINDS[name] !== undefined;
}

/** Whether the config's value is a list (which IncrementalAlterConfigs may APPEND to and SUBTRACT from). */
export function isListConfig(name: string): boolean {
  const kind = KINDS[name];
  return typeof kind === 'object' && 'listOf' in kind;
}

/** A whole-number config's value; Kafka's Long.MAX_VALUE and others past brook's largest mean no limit. */
export function configNumber(value: string): number {
  return Math.min(Number(value.trim()), ANY);
}

/** What is wrong with setting topic config `name` to `value`, in Kafka's words; undefined if nothing. */
export function topicConfigProblem(name: string, value: string): string | undefined {
  const kind = KINDS[name];
  if (kind === undefined) return `Unknown topic config name: ${name}`;
  const trimmed = value.trim();
  const setting = TOPIC_CONFIG_SETTINGS.get(name);
  if (fits(kind, trimmed)) {
    // A config a broker setting is the default of takes what that setting takes.
    if (setting === undefined || setting.kind.fits(typeof setting.default === 'number' ? configNumber(trimmed) : trimmed)) return undefined;
    return `Invalid value ${value} for configuration ${name}: Value must be ${setting.kind.said}`;
  }
  const expected =
    typeof kind === 'string'
      ? `Not a number of type ${kind.toUpperCase()}`
      : `String must be one of: ${'oneOf' in kind ? kind.oneOf.join(', ') : kind.listOf.join(', ')}`;
  return `Invalid value ${value} for configuration ${name}: ${kind === 'boolean' ? 'Expected value to be either true or false' : expected}`;
}

/** Whether `value` holds configs brook would have stored: Kafka's names, each with a value it takes. */
export function isTopicConfigs(value: unknown): value is TopicConfigs {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(([name, v]) => typeof v === 'string' && topicConfigProblem(name, v) === undefined);
}

/** The log options named for the topic configs they are (segmentBytes for segment.bytes, …). */
const LOG_SETTINGS = OPTIONS.flatMap(([key, s]) =>
  s.topic !== undefined && ['segmentBytes', 'segmentMs', 'retentionMs', 'retentionBytes'].includes(key) ? [[key, s.topic] as const] : [],
);

/**
 * The options a topic's partitions run with: the topic's own configs over `defaults`, the
 * broker's. A cleanup.policy without `delete` keeps every segment whatever the retention, as in
 * Kafka, where only the cleaner removes records from a compacted topic.
 */
export function topicLogOptions(defaults: LogOptions, configs: TopicConfigs): LogOptions {
  const own = LOG_SETTINGS.flatMap(([key, name]) => {
    const value = configs[name];
    return value === undefined ? [] : [[key, configNumber(value)]];
  });
  const kept = configs['cleanup.policy'] !== undefined && !listItems(configs['cleanup.policy']).includes('delete');
  return { ...defaults, ...Object.fromEntries(own), ...(kept ? { retentionMs: -1, retentionBytes: -1 } : {}) };
}
