/**
 * Topic configs by Kafka's names: the values every topic has (brook applies its broker-wide
 * settings to all topics), and the check CreateTopics makes of the configs it is sent, which are
 * Kafka's topic config names, each with a value of its type.
 */
import { DEFAULT_CONFIG, type BrokerConfig } from './config.js';

type Kind = 'int' | 'long' | 'double' | 'boolean' | 'string' | { readonly oneOf: readonly string[] } | { readonly listOf: readonly string[] };

/** Kafka's topic configs (TopicConfig, 3.x and 4.0) and the type of each. */
const KINDS: Readonly<Record<string, Kind>> = {
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
  'max.message.bytes': 'int',
  'message.downconversion.enable': 'boolean',
  'message.format.version': 'string',
  'message.timestamp.after.max.ms': 'long',
  'message.timestamp.before.max.ms': 'long',
  'message.timestamp.difference.max.ms': 'long',
  'message.timestamp.type': { oneOf: ['CreateTime', 'LogAppendTime'] },
  'min.cleanable.dirty.ratio': 'double',
  'min.compaction.lag.ms': 'long',
  'min.insync.replicas': 'int',
  preallocate: 'boolean',
  'remote.log.copy.disable': 'boolean',
  'remote.log.delete.on.disable': 'boolean',
  'remote.storage.enable': 'boolean',
  'retention.bytes': 'long',
  'retention.ms': 'long',
  'segment.bytes': 'int',
  'segment.index.bytes': 'int',
  'segment.jitter.ms': 'long',
  'segment.ms': 'long',
  'unclean.leader.election.enable': 'boolean',
};

const INTEGER = /^[+-]?\d+$/;

function fits(kind: Kind, value: string): boolean {
  if (kind === 'int') return INTEGER.test(value) && Number(value) >= -(2 ** 31) && Number(value) < 2 ** 31;
  if (kind === 'long') return INTEGER.test(value) && BigInt.asIntN(64, BigInt(value)) === BigInt(value);
  if (kind === 'double') return value !== '' && Number.isFinite(Number(value));
  if (kind === 'boolean') return /^(true|false)$/i.test(value);
  if (kind === 'string') return true;
  if ('oneOf' in kind) return kind.oneOf.includes(value);
  return value.split(',').every((item) => kind.listOf.includes(item.trim()));
}

/** What is wrong with setting topic config `name` to `value`, in Kafka's words; undefined if nothing. */
export function topicConfigProblem(name: string, value: string): string | undefined {
  const kind = KINDS[name];
  if (kind === undefined) return `Unknown topic config name: ${name}`;
  const trimmed = value.trim();
  if (fits(kind, trimmed)) return undefined;
  const expected = typeof kind === 'string' ? `Not a number of type ${kind.toUpperCase()}` : `String must be one of: ${'oneOf' in kind ? kind.oneOf.join(', ') : kind.listOf.join(', ')}`;
  return `Invalid value ${value} for configuration ${name}: ${kind === 'boolean' ? 'Expected value to be either true or false' : expected}`;
}

/** The configs in force for every topic, from the broker's settings. */
function topicConfigs(c: BrokerConfig): Record<string, string> {
  return {
    'cleanup.policy': 'delete',
    'compression.type': 'producer',
    'max.message.bytes': String(c.maxRequestBytes),
    'message.timestamp.after.max.ms': String(c.messageTimestampAfterMaxMs),
    'message.timestamp.before.max.ms': String(c.messageTimestampBeforeMaxMs),
    'message.timestamp.type': c.messageTimestampType,
    'min.insync.replicas': '1',
    'retention.bytes': String(c.retentionBytes),
    'retention.ms': String(c.retentionMs),
    'segment.bytes': String(c.segmentBytes),
    'segment.ms': String(c.segmentMs),
  };
}

/** Kafka's ConfigSource values. */
const STATIC_BROKER_CONFIG = 4;
export const DEFAULT_CONFIG_SOURCE = 5;

export interface ConfigEntry {
  readonly name: string;
  readonly value: string;
  readonly configSource: number;
}

/** Each config with where its value comes from: a setting the broker was given, or its default. */
export function configEntries(values: Record<string, string>, defaults: Record<string, string>): ConfigEntry[] {
  return Object.entries(values).map(([name, value]) => ({ name, value, configSource: value === defaults[name] ? DEFAULT_CONFIG_SOURCE : STATIC_BROKER_CONFIG }));
}

export function topicConfigEntries(c: BrokerConfig): ConfigEntry[] {
  return configEntries(topicConfigs(c), topicConfigs(DEFAULT_CONFIG));
}
