/**
 * Every broker setting, once: its startBroker option (the row's name), its `brook serve` flag (the
 * name in kebab case, or the row's `flag`), its Kafka names, the values it takes, its default and what it does. The
 * flags, startBroker's checks, the defaults, DescribeConfigs' answers and the README's tables
 * (`npm run gen:readme`) all come from here: a new setting is one row (README, "Adding a
 * setting"). The topic configs a setting is the default of are rows of topic-configs.ts.
 */
import { KAFKA_VERSIONS } from '../protocol/kafka-releases.js';
import { TIMESTAMP_TYPES } from '../protocol/record-batch.js';

import {
  addressCounts,
  ANY,
  assignorList,
  bool,
  clientAuth,
  faultRules,
  flushPolicy,
  hostPort,
  int,
  INT32_MAX,
  long,
  MAX_TIMER_MS,
  oneOf,
  pemFile,
  pinoLogger,
  port,
  positiveDouble,
  principals,
  ratio,
  text,
  tlsListener,
  type Kind,
} from './kinds.js';

/** Kafka's `ConsumerGroupMigrationPolicy`, as its config spells them. */
export const CONSUMER_GROUP_MIGRATION_POLICIES = ['disabled', 'upgrade', 'downgrade', 'bidirectional'] as const;
export type ConsumerGroupMigrationPolicy = (typeof CONSUMER_GROUP_MIGRATION_POLICIES)[number];

export interface Setting<T = unknown> {
  readonly kind: Kind<T>;
  /** undefined: not set unless given, `unset` saying what that means. */
  readonly default: T | undefined;
  readonly unset?: string;
  /** One line; `code` in backquotes, which `--help` leaves out. */
  readonly description: string;
  /** 'flag': a `brook serve` flag only, making part of an option; 'option': a startBroker option only. */
  readonly only?: 'flag' | 'option';
  /** The flag's name in kebab case, where it is not the setting's (`--fault`, one rule of `faults`). */
  readonly flag?: string;
  /** The Kafka broker config it is, which DescribeConfigs shows with its value. */
  readonly broker?: string;
  /** Kafka lets AlterConfigs change it at run time (a dynamic broker config), and brook applies it at once. */
  readonly dynamic?: true;
  /** Kafka's names, where no one config is the setting (markdown: `code` in backquotes). */
  readonly kafka?: string;
  /** What startBroker does without it, where that is not the default (a flag's). */
  readonly embedded?: string;
}

interface Row<T, D extends T | undefined, O extends Setting['only']> extends Setting<T> {
  readonly default: D;
  readonly only: O;
}

function setting<T, const D extends T | undefined, const O extends Setting['only'] = undefined>(
  row: Omit<Setting, 'kind' | 'default' | 'only'> & { readonly kind: Kind<T>; readonly default: D; readonly only?: O },
): Row<T, D, O> {
  return row as Row<T, D, O>;
}

const DAY = 24 * 3600 * 1000;
const MiB = 1024 * 1024;

export const SETTINGS = {
  host: setting({
    kind: text('a host name or address', '<host>'),
    default: '127.0.0.1',
    kafka: '`listeners`',
    description: 'address to listen on, loopback only by default; `0.0.0.0` (as in Kafka) or `::`, every address, needs `--advertised-listener`',
  }),
  port: setting({
    kind: port(0),
    default: 9092,
    kafka: '`listeners`',
    embedded: '0 (a free port) without `dataDir`, 9092 with one',
    description: 'port to listen on',
  }),
  nodes: setting({
    kind: int(1, 16),
    default: 1,
    kafka: '`node.id`',
    description:
      'node ids served, 1 up, each on its own port from `port` on (or a free one each), over one store: a simulated cluster for client tests, not replication',
  }),
  dataDir: setting({
    kind: text('a directory path', '<dir>'),
    default: './data',
    broker: 'log.dirs',
    embedded: 'a fresh temporary directory, removed on close (one given is kept)',
    description: 'where the log and metadata are kept',
  }),
  partitions: setting({ kind: int(1, 100_000), default: 1, broker: 'num.partitions', description: 'partitions of automatically created topics' }),
  advertisedListener: setting({
    kind: hostPort,
    default: undefined,
    unset: 'the bound address',
    kafka: '`advertised.listeners`',
    description: 'address given to clients in Metadata',
  }),
  kafkaVersion: setting({
    kind: oneOf(KAFKA_VERSIONS, '<release>'),
    default: '4.0',
    kafka: 'the release itself, and its `metadata.version`',
    description:
      'answer as that Kafka release: the API versions its ApiVersions advertises, refusing those below its lowest as it does, and its finalized features',
  }),
  autoCreateTopics: setting({ kind: bool, default: true, broker: 'auto.create.topics.enable', description: 'create the topics Metadata requests name' }),
  // Positions in the index are 32-bit.
  segmentBytes: setting({
    kind: int(14, INT32_MAX, 'bytes'),
    default: 64 * MiB,
    broker: 'log.segment.bytes',
    dynamic: true,
    description: 'roll a log segment before it would pass this size',
  }),
  segmentMs: setting({
    kind: long(1, ANY, 'ms'),
    default: 7 * DAY,
    broker: 'log.roll.ms',
    dynamic: true,
    description: 'roll a log segment once its first batch is this old',
  }),
  flush: setting({
    kind: flushPolicy,
    default: 'none',
    kafka: '`log.flush.interval.*`',
    description:
      'when appended data is fsynced: `none` leaves it to the operating system, `always` before each acknowledgement, `interval:<ms>` in the background',
  }),
  retentionMs: setting({
    kind: long(-1, ANY, 'ms'),
    default: 7 * DAY,
    broker: 'log.retention.ms',
    dynamic: true,
    description: 'delete segments older than this; -1 keeps them',
  }),
  retentionBytes: setting({
    kind: long(-1, ANY, 'bytes'),
    default: -1,
    broker: 'log.retention.bytes',
    dynamic: true,
    description: 'delete old segments past this partition size; -1 keeps them',
  }),
  retentionCheckIntervalMs: setting({
    kind: long(1, MAX_TIMER_MS, 'ms'),
    default: 300_000,
    broker: 'log.retention.check.interval.ms',
    description: 'how often retention and producer expiration run',
  }),
  producerIdExpirationMs: setting({
    kind: int(1, ANY, 'ms'),
    default: DAY,
    broker: 'producer.id.expiration.ms',
    description: 'forget an idle producer this long after its last write',
  }),
  producerIdsPerHour: setting({
    kind: int(1, INT32_MAX),
    default: undefined,
    unset: 'no limit',
    kafka: '`producer_ids_rate` (KIP-936, proposed)',
    description: 'new producer ids InitProducerId hands each principal in an hour; past it, `THROTTLING_QUOTA_EXCEEDED`',
  }),
  cleanerEnable: setting({
    kind: bool,
    default: true,
    broker: 'log.cleaner.enable',
    description: 'run the log cleaner, which compacts topics with `cleanup.policy=compact`',
  }),
  cleanerBackoffMs: setting({
    kind: long(1, MAX_TIMER_MS, 'ms'),
    default: 15_000,
    broker: 'log.cleaner.backoff.ms',
    description: 'how long the log cleaner waits when no partition needs cleaning',
  }),
  cleanerDedupeBufferSize: setting({
    kind: long(1024, ANY, 'bytes'),
    default: 128 * MiB,
    broker: 'log.cleaner.dedupe.buffer.size',
    description: "the log cleaner's offset map: at most this much memory for the keys of one cleaning",
  }),
  // Kafka's default is Double.MAX_VALUE: no limit.
  cleanerIoMaxBytesPerSecond: setting({
    kind: positiveDouble(ANY, 'bytes'),
    default: ANY,
    broker: 'log.cleaner.io.max.bytes.per.second',
    description: 'the bytes per second the log cleaner reads and writes at most; by default no limit, as in Kafka',
  }),
  cleanerDeleteRetentionMs: setting({
    kind: long(0, ANY, 'ms'),
    default: DAY,
    broker: 'log.cleaner.delete.retention.ms',
    dynamic: true,
    description: "how long a compacted topic keeps a tombstone once it is its key's latest record",
  }),
  cleanerMinCompactionLagMs: setting({
    kind: long(0, ANY, 'ms'),
    default: 0,
    broker: 'log.cleaner.min.compaction.lag.ms',
    dynamic: true,
    description: 'records of a compacted topic younger than this stay as written',
  }),
  // Kafka's default is Long.MAX_VALUE: no limit.
  cleanerMaxCompactionLagMs: setting({
    kind: long(1, ANY, 'ms'),
    default: ANY,
    broker: 'log.cleaner.max.compaction.lag.ms',
    dynamic: true,
    description: 'records of a compacted topic older than this are cleaned whatever its dirty ratio; by default no limit, as in Kafka',
  }),
  cleanerMinCleanableRatio: setting({
    kind: ratio,
    default: 0.5,
    broker: 'log.cleaner.min.cleanable.ratio',
    dynamic: true,
    description: "the share of a compacted partition's cleanable bytes not yet cleaned that starts a cleaning",
  }),
  transactionMaxTimeoutMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 900_000,
    broker: 'transaction.max.timeout.ms',
    description: 'the longest transaction timeout a producer may ask for',
  }),
  transactionAbortTimedOutTransactionCleanupIntervalMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 10_000,
    broker: 'transaction.abort.timed.out.transaction.cleanup.interval.ms',
    description: 'how often transactions open past their timeout are looked for and aborted',
  }),
  transactionalIdExpirationMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 7 * DAY,
    broker: 'transactional.id.expiration.ms',
    description:
      'forget a transactional id with no transaction open once it has had no change this long; its next InitProducerId starts it afresh, with a new producer id',
  }),
  transactionRemoveExpiredTransactionCleanupIntervalMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 3_600_000,
    broker: 'transaction.remove.expired.transaction.cleanup.interval.ms',
    description: 'how often transactional ids past `transactional.id.expiration.ms` are looked for and removed',
  }),
  offsetsTopicNumPartitions: setting({
    kind: int(1, 100_000),
    default: 50,
    broker: 'offsets.topic.num.partitions',
    description: 'partitions of `__consumer_offsets` when it is created; which one holds a group follows from its partitions',
  }),
  offsetsTopicSegmentBytes: setting({
    kind: int(14, INT32_MAX, 'bytes'),
    default: 100 * MiB,
    broker: 'offsets.topic.segment.bytes',
    description: 'the `segment.bytes` `__consumer_offsets` is created with',
  }),
  transactionStateLogNumPartitions: setting({
    kind: int(1, 100_000),
    default: 50,
    broker: 'transaction.state.log.num.partitions',
    description: 'partitions of `__transaction_state` when it is created; which one holds a transactional id follows from its partitions',
  }),
  transactionStateLogSegmentBytes: setting({
    kind: int(14, INT32_MAX, 'bytes'),
    default: 100 * MiB,
    broker: 'transaction.state.log.segment.bytes',
    description: 'the `segment.bytes` `__transaction_state` is created with',
  }),
  transactionStateLogMinIsr: setting({
    kind: int(1, INT32_MAX),
    default: 2,
    broker: 'transaction.state.log.min.isr',
    description: 'the `min.insync.replicas` `__transaction_state` is created with',
  }),
  offsetsRetentionMinutes: setting({
    kind: int(1, INT32_MAX),
    default: (7 * DAY) / 60_000,
    broker: 'offsets.retention.minutes',
    description:
      "forget a group's committed offsets once it has been Empty this many minutes; a group that only commits, each offset this long after its commit",
  }),
  offsetsRetentionCheckIntervalMs: setting({
    kind: long(1, MAX_TIMER_MS, 'ms'),
    default: 600_000,
    broker: 'offsets.retention.check.interval.ms',
    description: 'how often expired offsets, and Empty groups without offsets, are removed',
  }),
  consumerGroupSessionTimeoutMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 45_000,
    broker: 'group.consumer.session.timeout.ms',
    description: 'how long a consumer-protocol member may go without a heartbeat before it is removed from its group',
  }),
  consumerGroupMinSessionTimeoutMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 45_000,
    broker: 'group.consumer.min.session.timeout.ms',
    description: 'the least `group.consumer.session.timeout.ms` may be',
  }),
  consumerGroupMaxSessionTimeoutMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 60_000,
    broker: 'group.consumer.max.session.timeout.ms',
    description: 'the most `group.consumer.session.timeout.ms` may be',
  }),
  consumerGroupHeartbeatIntervalMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 5000,
    broker: 'group.consumer.heartbeat.interval.ms',
    description: 'how often consumer-protocol members are told to heartbeat',
  }),
  consumerGroupMinHeartbeatIntervalMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 5000,
    broker: 'group.consumer.min.heartbeat.interval.ms',
    description: 'the least `group.consumer.heartbeat.interval.ms` may be',
  }),
  consumerGroupMaxHeartbeatIntervalMs: setting({
    kind: int(1, INT32_MAX, 'ms'),
    default: 15_000,
    broker: 'group.consumer.max.heartbeat.interval.ms',
    description: 'the most `group.consumer.heartbeat.interval.ms` may be',
  }),
  consumerGroupMaxSize: setting({
    kind: int(1, INT32_MAX),
    default: INT32_MAX,
    broker: 'group.consumer.max.size',
    description: 'members a consumer-protocol group may have; one more is refused with GROUP_MAX_SIZE_REACHED',
  }),
  consumerGroupAssignors: setting({
    kind: assignorList,
    default: ['uniform', 'range'],
    broker: 'group.consumer.assignors',
    description: 'the server-side assignors consumer-protocol members may name, the first used when they name none',
  }),
  consumerGroupMigrationPolicy: setting({
    kind: oneOf(CONSUMER_GROUP_MIGRATION_POLICIES, '<policy>'),
    default: 'bidirectional',
    broker: 'group.consumer.migration.policy',
    description:
      "whether a classic group with members becomes a consumer group when a consumer-protocol member joins (`upgrade`), and back when the last one leaves (`downgrade`): `bidirectional` both, Kafka 4.0's default (3.9's is `disabled`); `disabled` neither, and no classic member joins a consumer group",
  }),
  // Kafka 4.0's hour: a batch stamped further ahead would start a segment of its own.
  messageTimestampAfterMaxMs: setting({
    kind: long(0, ANY, 'ms'),
    default: 3_600_000,
    broker: 'log.message.timestamp.after.max.ms',
    dynamic: true,
    description:
      "refuse a batch with a record stamped further ahead of the broker's clock: `INVALID_TIMESTAMP`, naming each such record; Kafka 4.0's default, 3.x had no limit",
  }),
  // Kafka's default is Long.MAX_VALUE; brook's largest is 2^53-1 ms, 285,000 years.
  messageTimestampBeforeMaxMs: setting({
    kind: long(0, ANY, 'ms'),
    default: ANY,
    broker: 'log.message.timestamp.before.max.ms',
    dynamic: true,
    description: 'likewise for records stamped further behind it; by default no limit, as in Kafka',
  }),
  messageTimestampType: setting({
    kind: oneOf(TIMESTAMP_TYPES, '<type>'),
    default: 'CreateTime',
    broker: 'log.message.timestamp.type',
    dynamic: true,
    description:
      "`CreateTime` keeps the producer's record times; `LogAppendTime` stamps each batch with the broker's clock as it is stored, and answers that time",
  }),
  maxRequestBytes: setting({
    kind: int(64, INT32_MAX, 'bytes'),
    default: 104_857_600,
    broker: 'socket.request.max.bytes',
    description: "largest request accepted, and so every topic's largest batch",
  }),
  queuedMaxRequestBytes: setting({
    kind: long(1024, ANY, 'bytes'),
    default: 512 * MiB,
    broker: 'queued.max.request.bytes',
    description:
      "memory for work in flight, all connections together: each request's declared size from its size prefix until it is answered, the records the checks thread decompresses, and Fetch answers' log bytes until written; past it a connection reads no more until memory is given back, first come first served, and a Fetch answers with the batches that fit. At least `--max-request-bytes`, as in Kafka, whose default (−1) sets no bound",
  }),
  partitionMemoryBytes: setting({
    kind: long(0, ANY, 'bytes'),
    default: 128 * MiB,
    description:
      'memory all partitions together keep for their newest batches and for batches waiting to be written; the least recently used partitions, and any idle for 10 s, give theirs back and are read from the files',
  }),
  fetchMaxBytes: setting({
    kind: int(1024, INT32_MAX, 'bytes'),
    default: 55 * MiB,
    broker: 'fetch.max.bytes',
    description: "most record bytes in one Fetch answer (but its first batch), and in a connection's unsent answers",
  }),
  maxConnections: setting({ kind: int(1, ANY), default: 1000, broker: 'max.connections', description: 'connections accepted at once' }),
  maxConnectionsPerIp: setting({
    kind: int(0, INT32_MAX),
    default: INT32_MAX,
    broker: 'max.connections.per.ip',
    description: 'connections accepted at once from one client address; past it a new one is closed at once',
  }),
  maxConnectionsPerIpOverrides: setting({
    kind: addressCounts,
    default: undefined,
    unset: 'none',
    kafka: '`max.connections.per.ip.overrides`',
    description: 'client addresses allowed another number of connections than `--max-connections-per-ip`',
  }),
  connectionsMaxIdleMs: setting({
    kind: long(1, MAX_TIMER_MS, 'ms'),
    default: 600_000,
    broker: 'connections.max.idle.ms',
    description: 'close connections idle this long',
  }),
  maxQueuedResponsesPerConnection: setting({
    kind: int(1, ANY),
    default: 100,
    only: 'option',
    description: 'answers a connection may have waiting before it stops reading requests',
  }),
  tls: setting({
    kind: tlsListener,
    default: undefined,
    unset: 'plain TCP',
    only: 'option',
    kafka: '`ssl.keystore.*`, `ssl.truststore.*`, `ssl.client.auth`',
    description: 'listen with TLS: PEM texts, not file names',
  }),
  tlsCert: setting({
    kind: pemFile,
    default: undefined,
    unset: 'plain TCP',
    only: 'flag',
    kafka: '`ssl.keystore.*`',
    description: 'PEM certificate chain: listen with TLS (with `--tls-key`)',
  }),
  tlsKey: setting({
    kind: pemFile,
    default: undefined,
    unset: 'none',
    only: 'flag',
    kafka: '`ssl.keystore.*`',
    description: 'PEM private key of `--tls-cert`',
  }),
  tlsCa: setting({
    kind: pemFile,
    default: undefined,
    unset: 'none',
    only: 'flag',
    kafka: '`ssl.truststore.*`',
    description: 'PEM CA certificates that client certificates must be signed by',
  }),
  tlsClientAuth: setting({ kind: clientAuth, default: 'none', only: 'flag', kafka: '`ssl.client.auth`', description: 'ask clients for a certificate' }),
  saslUsersFile: setting({
    kind: text('a file path', '<file>'),
    default: undefined,
    unset: 'no SASL',
    kafka: '`sasl.enabled.mechanisms` and SCRAM credentials',
    description: 'require SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) with the users in this file (see `brook add-user`)',
  }),
  failedAuthenticationDelayMs: setting({
    kind: long(0, MAX_TIMER_MS, 'ms'),
    default: 1000,
    broker: 'connection.failed.authentication.delay.ms',
    description: 'wait this long before answering a failed authentication (Kafka: 100 ms)',
  }),
  authorizer: setting({
    kind: bool,
    default: false,
    kafka: '`authorizer.class.name` (StandardAuthorizer)',
    description: 'authorize every request by the ACLs (see Authorization), kept in the data directory',
  }),
  superUsers: setting({
    kind: principals,
    default: undefined,
    unset: 'none',
    kafka: '`super.users`',
    description: 'principals the authorizer allows everything, such as `User:admin`',
  }),
  allowEveryoneIfNoAclFound: setting({
    kind: bool,
    default: false,
    kafka: '`allow.everyone.if.no.acl.found`',
    description: 'let the authorizer allow anyone anything on a resource that no ACL names',
  }),
  metricsPort: setting({
    kind: port(0),
    default: undefined,
    unset: 'no endpoint',
    description: "serve Prometheus metrics at http://HOST:PORT/metrics, on the broker's host (0: a free port)",
  }),
  consolePort: setting({
    kind: port(0),
    default: undefined,
    unset: 'no console',
    description: "serve the web console at http://HOST:PORT/ (https with `--tls-cert`), on the broker's host unless `--console-host` (0: a free port)",
  }),
  consoleHost: setting({
    kind: text('a host name or address', '<host>'),
    default: undefined,
    unset: "the broker's `--host`",
    description: 'address the web console listens on',
  }),
  faults: setting({
    kind: faultRules,
    default: undefined,
    unset: 'none',
    flag: 'fault',
    description: 'install a fault before listening; given again for each rule, such as `Produce,dropResponse,probability=5%`',
  }),
  logLevel: setting({
    kind: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace'], '<level>'),
    default: 'info',
    only: 'flag',
    description: 'how much to log',
  }),
  logFormat: setting({
    kind: oneOf(['auto', 'text', 'json'], '<format>'),
    default: 'auto',
    only: 'flag',
    description: 'log lines as text or as JSON; auto: text on a terminal, JSON otherwise',
  }),
  logger: setting({ kind: pinoLogger, default: undefined, unset: 'warnings and errors only, to stderr', only: 'option', description: 'where to log' }),
};

type Settings = typeof SETTINGS;
type ValueOf<K extends keyof Settings> = Settings[K] extends Row<infer T, infer D, Setting['only']> ? T | D : never;
type OptionName = { [K in keyof Settings]: Settings[K]['only'] extends 'flag' ? never : K }[keyof Settings];
type FlagName = { [K in keyof Settings]: Settings[K]['only'] extends 'option' ? never : K }[keyof Settings];

/** The settings a broker runs with: each startBroker option, given or its default. */
export type BrokerConfig = { readonly [K in OptionName]: ValueOf<K> };
/** What `brook serve`'s flags are read into. */
export type ServeFlags = { readonly [K in FlagName]: ValueOf<K> };

const ROWS = Object.entries(SETTINGS) as [keyof Settings, Setting][];

/** The startBroker options, in the table's order. */
export const OPTIONS = ROWS.filter(([, s]) => s.only !== 'flag');
/** The `brook serve` flags, in the table's order. */
export const FLAGS = ROWS.filter(([, s]) => s.only !== 'option');

export const DEFAULT_CONFIG = Object.fromEntries(OPTIONS.map(([name, s]) => [name, s.default])) as BrokerConfig;

/** The flag of a setting: its name in kebab case; a switch on by default is turned off by `--no-`. */
export function flagOf(name: string, s: Setting): string {
  const kebab = s.flag ?? name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  return turnedOff(s) ? `--no-${kebab}` : `--${kebab}`;
}

/** What a setting's flag does. */
export function flagDescription(s: Setting): string {
  return turnedOff(s) ? `do not ${s.description}` : s.description;
}

const turnedOff = (s: Setting): boolean => s.kind.parse === undefined && s.default === true;

/** The broker configs by Kafka's names, with their values in `config`. */
export function brokerConfigValues(config: BrokerConfig): Record<string, string> {
  const values = config as Readonly<Record<string, unknown>>;
  return Object.fromEntries(OPTIONS.flatMap(([name, s]) => (s.broker === undefined ? [] : [[s.broker, String(values[name])]])));
}
