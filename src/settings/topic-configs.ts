/**
 * Kafka's topic configs, one row each, as Kafka's LogConfig defines them: Kafka's type and valid
 * range, where a topic without its own value gets it (a broker setting, or a value brook fixes,
 * with the broker config Kafka names for it), and the field of a topic's effective config it
 * becomes. CreateTopics, AlterConfigs and IncrementalAlterConfigs check values here, DescribeConfigs
 * answers from here, and the log, the cleaner and Produce read the effective config made here.
 */
import { TIMESTAMP_TYPES } from '../protocol/record-batch.js';
import { ANY, type KafkaType } from './kinds.js';
import { SETTINGS, type BrokerConfig } from './settings.js';

/** Config name to value: only the configs a topic has of its own. */
export type TopicConfigs = Readonly<Record<string, string>>;

type SettingName = keyof BrokerConfig & keyof typeof SETTINGS;

interface Row<F extends string | undefined, T extends KafkaType> {
  readonly name: string;
  /** Kafka's type (ConfigDef.Type). */
  readonly type: T;
  /** Kafka's valid range of a number (ConfigDef.Range): at least, no more than. */
  readonly range?: readonly [number | undefined, number | undefined];
  /** The broker setting whose value a topic without its own has. */
  readonly setting?: SettingName;
  /** Or the value brook fixes for every topic, and the broker config Kafka takes it from. */
  readonly fixed?: { readonly value: string; readonly broker: string };
  /** The field of the effective config it becomes; none: stored and answered only. */
  readonly field: F;
}

function row<const F extends string | undefined = undefined, const T extends KafkaType = KafkaType>(r: Row<F, T>): Row<F, T> {
  return r;
}

const INT: [number, number] = [-(2 ** 31), 2 ** 31 - 1];
const atLeast = (min: number): [number, undefined] => [min, undefined];

/** Kafka 3.9's topic configs (LogConfig, and QuotaConfig's two throttled-replica lists). */
const ROWS = [
  row({ name: 'cleanup.policy', type: { listOf: ['compact', 'delete'] }, fixed: { value: 'delete', broker: 'log.cleanup.policy' }, field: 'cleanupPolicy' }),
  row({
    name: 'compression.type',
    type: { oneOf: ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] },
    fixed: { value: 'producer', broker: 'compression.type' },
    field: undefined,
  }),
  // As Kafka's CompressionType level validators: gzip's -1 is Deflater's default.
  row({ name: 'compression.gzip.level', type: 'int', range: [-1, 9], field: undefined }),
  row({ name: 'compression.lz4.level', type: 'int', range: [1, 17], field: undefined }),
  row({ name: 'compression.zstd.level', type: 'int', range: [-131072, 22], field: undefined }),
  row({ name: 'delete.retention.ms', type: 'long', range: atLeast(0), setting: 'cleanerDeleteRetentionMs', field: 'deleteRetentionMs' }),
  row({ name: 'file.delete.delay.ms', type: 'long', range: atLeast(0), field: undefined }),
  row({ name: 'flush.messages', type: 'long', range: atLeast(1), field: undefined }),
  row({ name: 'flush.ms', type: 'long', range: atLeast(0), field: undefined }),
  row({ name: 'follower.replication.throttled.replicas', type: 'string', field: undefined }),
  row({ name: 'index.interval.bytes', type: 'int', range: atLeast(0), field: undefined }),
  row({ name: 'leader.replication.throttled.replicas', type: 'string', field: undefined }),
  row({ name: 'local.retention.bytes', type: 'long', range: atLeast(-2), field: undefined }),
  row({ name: 'local.retention.ms', type: 'long', range: atLeast(-2), field: undefined }),
  row({ name: 'max.compaction.lag.ms', type: 'long', range: atLeast(1), setting: 'cleanerMaxCompactionLagMs', field: 'maxCompactionLagMs' }),
  row({ name: 'max.message.bytes', type: 'int', range: atLeast(0), setting: 'maxRequestBytes', field: 'maxMessageBytes' }),
  row({ name: 'message.downconversion.enable', type: 'boolean', field: undefined }),
  row({ name: 'message.format.version', type: 'string', field: undefined }),
  row({ name: 'message.timestamp.after.max.ms', type: 'long', range: atLeast(0), setting: 'messageTimestampAfterMaxMs', field: 'timestampAfterMaxMs' }),
  row({ name: 'message.timestamp.before.max.ms', type: 'long', range: atLeast(0), setting: 'messageTimestampBeforeMaxMs', field: 'timestampBeforeMaxMs' }),
  row({ name: 'message.timestamp.difference.max.ms', type: 'long', range: atLeast(0), field: undefined }),
  row({ name: 'message.timestamp.type', type: { oneOf: TIMESTAMP_TYPES }, setting: 'messageTimestampType', field: 'timestampType' }),
  row({ name: 'min.cleanable.dirty.ratio', type: 'double', range: [0, 1], setting: 'cleanerMinCleanableRatio', field: 'minCleanableDirtyRatio' }),
  row({ name: 'min.compaction.lag.ms', type: 'long', range: atLeast(0), setting: 'cleanerMinCompactionLagMs', field: 'minCompactionLagMs' }),
  row({ name: 'min.insync.replicas', type: 'int', range: atLeast(1), fixed: { value: '1', broker: 'min.insync.replicas' }, field: 'minInsyncReplicas' }),
  row({ name: 'preallocate', type: 'boolean', field: undefined }),
  row({ name: 'remote.log.copy.disable', type: 'boolean', field: undefined }),
  row({ name: 'remote.log.delete.on.disable', type: 'boolean', field: undefined }),
  row({ name: 'remote.storage.enable', type: 'boolean', field: undefined }),
  // Can be negative, as in Kafka: any negative size keeps every segment.
  row({ name: 'retention.bytes', type: 'long', setting: 'retentionBytes', field: 'retentionBytes' }),
  row({ name: 'retention.ms', type: 'long', range: atLeast(-1), setting: 'retentionMs', field: 'retentionMs' }),
  // Kafka 3.x's least, LegacyRecord.RECORD_OVERHEAD_V0 (4.0's is 1 MiB).
  row({ name: 'segment.bytes', type: 'int', range: atLeast(14), setting: 'segmentBytes', field: 'segmentBytes' }),
  row({ name: 'segment.index.bytes', type: 'int', range: atLeast(4), field: undefined }),
  row({ name: 'segment.jitter.ms', type: 'long', range: atLeast(0), field: undefined }),
  row({ name: 'segment.ms', type: 'long', range: atLeast(1), setting: 'segmentMs', field: 'segmentMs' }),
  row({ name: 'unclean.leader.election.enable', type: 'boolean', field: undefined }),
];

type Rows = (typeof ROWS)[number];
type ValueOf<T extends KafkaType> = T extends 'int' | 'long' | 'double'
  ? number
  : T extends 'boolean'
    ? boolean
    : T extends { readonly oneOf: readonly (infer V)[] }
      ? V
      : T extends { readonly listOf: readonly (infer V)[] }
        ? readonly V[]
        : string;

/** A topic's configs in force, typed: its own values over the broker's, one field for each row that has one. */
export type TopicConfig = { readonly [R in Rows as R['field'] & string]: ValueOf<R['type']> };

export type TopicConfigRow = Row<string | undefined, KafkaType>;

/** The table, by config name. */
export const TOPIC_CONFIGS: ReadonlyMap<string, TopicConfigRow> = new Map(ROWS.map((r) => [r.name, r]));

/** The topic config a broker setting is the default of. */
export const TOPIC_CONFIG_OF_SETTING: ReadonlyMap<string, string> = new Map(ROWS.flatMap((r) => (r.setting === undefined ? [] : [[r.setting, r.name]])));

/** The broker config Kafka names as the default of a topic config, if it has one here. */
export function brokerConfigName(row: TopicConfigRow): string | undefined {
  return row.setting === undefined ? row.fixed?.broker : SETTINGS[row.setting].broker;
}

/** What a topic config's number counts, for people: its broker setting's unit, else what Kafka's name ends with. */
export function unitOf(row: TopicConfigRow): 'bytes' | 'ms' | undefined {
  const unit = row.setting === undefined ? undefined : SETTINGS[row.setting].kind.unit;
  return unit ?? (row.name.endsWith('.ms') ? 'ms' : row.name.endsWith('.bytes') ? 'bytes' : undefined);
}

/** The values a topic config takes, in words: Kafka's type and range. */
export function acceptedValues(row: TopicConfigRow): string {
  const t = row.type;
  if (typeof t !== 'string') return 'oneOf' in t ? `one of ${t.oneOf.join(', ')}` : `a list of ${t.listOf.join(', ')}`;
  const [min, max] = row.range ?? [undefined, undefined];
  const range = min === undefined ? '' : max === undefined ? ` from ${min}` : ` from ${min} to ${max}`;
  return `${t === 'double' ? 'a number' : t === 'boolean' ? 'true or false' : t === 'string' ? 'text' : 'a whole number'}${range}`;
}

/** The value a topic without its own has under broker settings `c`; undefined if brook has none. */
export function defaultValue(row: TopicConfigRow, c: BrokerConfig): string | undefined {
  return row.setting === undefined ? row.fixed?.value : String(c[row.setting]);
}

/** The items of a list config's value. */
export function listItems(value: string): string[] {
  return value.split(',').map((item) => item.trim());
}

/** Whether the config's value is a list (which IncrementalAlterConfigs may APPEND to and SUBTRACT from). */
export function isListConfig(name: string): boolean {
  const type = TOPIC_CONFIGS.get(name)?.type;
  return typeof type === 'object' && 'listOf' in type;
}

/** A whole-number config's value; Kafka's Long.MAX_VALUE and others past brook's largest mean no limit. */
function configNumber(value: string): number {
  return Math.min(Number(value.trim()), ANY);
}

const INTEGER = /^[+-]?\d+$/;

function typeProblem(type: KafkaType, value: string): string | undefined {
  if (type === 'int' || type === 'long') {
    const fits =
      INTEGER.test(value) && (type === 'int' ? Number(value) >= INT[0] && Number(value) <= INT[1] : BigInt.asIntN(64, BigInt(value)) === BigInt(value));
    return fits ? undefined : `Not a number of type ${type.toUpperCase()}`;
  }
  if (type === 'double') return value !== '' && Number.isFinite(Number(value)) ? undefined : 'Not a number of type DOUBLE';
  if (type === 'boolean') return /^(true|false)$/i.test(value) ? undefined : 'Expected value to be either true or false';
  if (type === 'string') return undefined;
  const choices = 'oneOf' in type ? type.oneOf : type.listOf;
  const fits = 'oneOf' in type ? choices.includes(value) : listItems(value).every((item) => choices.includes(item));
  return fits ? undefined : `String must be one of: ${choices.join(', ')}`;
}

/** Kafka's words for a number outside its range, as ConfigDef.Range says them. */
function rangeProblem([min, max]: readonly [number | undefined, number | undefined], value: string, type: KafkaType): string | undefined {
  const n = type === 'double' ? Number(value) : BigInt(value);
  if (min !== undefined && n < (type === 'double' ? min : BigInt(min))) return `Value must be at least ${min}`;
  if (max !== undefined && n > (type === 'double' ? max : BigInt(max))) return `Value must be no more than ${max}`;
  return undefined;
}

/** What is wrong with setting topic config `name` to `value`, in Kafka's words (LogConfig.validate); undefined if nothing. */
export function topicConfigProblem(name: string, value: string): string | undefined {
  const r = TOPIC_CONFIGS.get(name);
  if (r === undefined) return `Unknown topic config name: ${name}`;
  const trimmed = value.trim();
  const problem = typeProblem(r.type, trimmed) ?? (r.range === undefined ? undefined : rangeProblem(r.range, trimmed, r.type));
  return problem === undefined ? undefined : `Invalid value ${value} for configuration ${name}: ${problem}`;
}

/** What is wrong with a topic's configs together, as Kafka's LogConfig.validateValues says it; undefined if nothing. Each value is checked already. */
export function topicConfigsProblem(c: BrokerConfig, own: TopicConfigs): string | undefined {
  const { minCompactionLagMs, maxCompactionLagMs } = topicConfig(c, own);
  if (minCompactionLagMs > maxCompactionLagMs)
    return `conflict topic config setting min.compaction.lag.ms (${minCompactionLagMs}) > max.compaction.lag.ms (${maxCompactionLagMs})`;
  return undefined;
}

/** Whether `value` holds configs brook would have stored: Kafka's names, each with a value it takes. */
export function isTopicConfigs(value: unknown): value is TopicConfigs {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.entries(value).every(([name, v]) => typeof v === 'string' && topicConfigProblem(name, v) === undefined);
}

/** A checked value as its row's type has it. */
function typed(type: KafkaType, value: string): unknown {
  if (type === 'int' || type === 'long') return configNumber(value);
  if (type === 'double') return Number(value);
  if (type === 'boolean') return value.toLowerCase() === 'true';
  if (typeof type === 'object' && 'listOf' in type) return listItems(value);
  return value;
}

/** The value in force of a topic config: the topic's own, or the broker's default; undefined if neither. */
export function topicConfigValue(c: BrokerConfig, own: TopicConfigs, row: TopicConfigRow): string | undefined {
  return Object.hasOwn(own, row.name) ? own[row.name] : defaultValue(row, c);
}

/** A topic's effective config: its own values over those of broker settings `c`, each as its type has it. */
export function topicConfig(c: BrokerConfig, own: TopicConfigs): TopicConfig {
  const fields = ROWS.flatMap((r) => (r.field === undefined ? [] : [[r.field, typed(r.type, topicConfigValue(c, own, r)!)]]));
  return Object.fromEntries(fields) as TopicConfig;
}
