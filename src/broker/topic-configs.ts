/**
 * Topic configs by Kafka's names: the values every topic has (brook applies its broker-wide
 * settings to all topics), and the check CreateTopics makes of the configs it is sent, which are
 * Kafka's topic config names, each with a value of its type.
 */
import type { KafkaType } from '../settings/kinds.js';
import { DEFAULT_CONFIG, TOPIC_CONFIG_SETTINGS, topicConfigDefaults, type BrokerConfig } from '../settings/settings.js';

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
  return value.split(',').every((item) => kind.listOf.includes(item.trim()));
}

/** What is wrong with setting topic config `name` to `value`, in Kafka's words; undefined if nothing. */
export function topicConfigProblem(name: string, value: string): string | undefined {
  const kind = KINDS[name];
  if (kind === undefined) return `Unknown topic config name: ${name}`;
  const trimmed = value.trim();
  if (fits(kind, trimmed)) return undefined;
  const expected =
    typeof kind === 'string'
      ? `Not a number of type ${kind.toUpperCase()}`
      : `String must be one of: ${'oneOf' in kind ? kind.oneOf.join(', ') : kind.listOf.join(', ')}`;
  return `Invalid value ${value} for configuration ${name}: ${kind === 'boolean' ? 'Expected value to be either true or false' : expected}`;
}

/** The configs in force for every topic: those brook fixes, and the broker's settings. */
function topicConfigs(c: BrokerConfig): Record<string, string> {
  return { 'cleanup.policy': 'delete', 'compression.type': 'producer', 'min.insync.replicas': '1', ...topicConfigDefaults(c) };
}

/** Kafka's ConfigSource values. */
const STATIC_BROKER_CONFIG = 4;
export const DEFAULT_CONFIG_SOURCE = 5;

export interface ConfigEntry {
  readonly name: string;
  readonly value: string;
  readonly configSource: number;
}

/** Each config, by name, with where its value comes from: a setting the broker was given, or its default. */
export function configEntries(values: Record<string, string>, defaults: Record<string, string>): ConfigEntry[] {
  return Object.entries(values)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => ({ name, value, configSource: value === defaults[name] ? DEFAULT_CONFIG_SOURCE : STATIC_BROKER_CONFIG }));
}

export function topicConfigEntries(c: BrokerConfig): ConfigEntry[] {
  return configEntries(topicConfigs(c), topicConfigs(DEFAULT_CONFIG));
}
