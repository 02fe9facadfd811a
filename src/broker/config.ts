/** Broker settings, named after the Kafka settings they mirror. */
import type { FlushPolicy } from '../log/options.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { TlsListener } from '../server/tcp-server.js';

export type { FlushPolicy };

export interface BrokerConfig {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** num.partitions: partitions of a topic created without a count. */
  readonly partitions: number;
  /** advertised.listeners; undefined means the bound address. */
  readonly advertisedListener: { readonly host: string; readonly port: number } | undefined;
  /** auto.create.topics.enable */
  readonly autoCreateTopics: boolean;
  readonly segmentBytes: number;
  readonly segmentMs: number;
  readonly flush: FlushPolicy;
  readonly retentionMs: number;
  readonly retentionBytes: number;
  /** log.retention.check.interval.ms: how often retention and producer expiration run. */
  readonly retentionCheckIntervalMs: number;
  readonly producerIdExpirationMs: number;
  /**
   * log.message.timestamp.after.max.ms: how far ahead of the broker's clock a batch's timestamp
   * may be. Kafka 4.0's default of an hour; further ahead, each batch would start a segment.
   */
  readonly messageTimestampAfterMaxMs: number;
  /** socket.request.max.bytes */
  readonly maxRequestBytes: number;
  /** queued.max.request.bytes: memory for requests received only in part, all connections together. */
  readonly maxPendingRequestBytes: number;
  readonly maxConnections: number;
  /** connections.max.idle.ms */
  readonly idleTimeoutMs: number;
  readonly maxQueuedResponsesPerConnection: number;
  /**
   * fetch.max.bytes: the most record bytes one Fetch answer carries, whatever the request asks
   * (but at least the first batch). Also how much a connection's unsent answers may hold before
   * it stops reading requests.
   */
  readonly fetchMaxBytes: number;
  /** A TLS listener instead of plain TCP. */
  readonly tls: TlsListener | undefined;
  /** The --sasl-users file; set, every connection must authenticate with SASL first. */
  readonly saslUsersFile: string | undefined;
  /** connection.failed.authentication.delay.ms */
  readonly failedAuthenticationDelayMs: number;
}

/** Kafka's name for the listener's security protocol (and so for the listener itself). */
export function securityProtocol(c: BrokerConfig): string {
  const sasl = c.saslUsersFile !== undefined;
  if (c.tls !== undefined) return sasl ? 'SASL_SSL' : 'SSL';
  return sasl ? 'SASL_PLAINTEXT' : 'PLAINTEXT';
}

export const NODE_ID = 1;
/** The only leader epoch there is: one broker leads every partition from the start. */
export const LEADER_EPOCH = 0;

/**
 * What Kafka answers a request that names the leader epoch it last saw: -1 names none; an older
 * one is FENCED_LEADER_EPOCH, a newer one (metadata this broker has not got) UNKNOWN_LEADER_EPOCH.
 */
export function leaderEpochError(currentLeaderEpoch: number): number {
  if (currentLeaderEpoch === -1 || currentLeaderEpoch === LEADER_EPOCH) return ErrorCode.NONE;
  return currentLeaderEpoch < LEADER_EPOCH ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
}

/** Kafka's UNDEFINED_EPOCH, and the offset answered with it. */
const UNDEFINED_EPOCH = -1;

/**
 * Kafka's leader epoch cache answering where `epoch` ended, for a log whose only epoch,
 * LEADER_EPOCH, began at its log start: the current epoch ends at the log end; an epoch it does
 * not know after it (or -1) is undefined; one before every epoch ends where the first began.
 */
export function epochEndOffset(epoch: number, logStartOffset: number, logEndOffset: number): { leaderEpoch: number; endOffset: number } {
  if (epoch === LEADER_EPOCH) return { leaderEpoch: LEADER_EPOCH, endOffset: logEndOffset };
  if (epoch === UNDEFINED_EPOCH || epoch > LEADER_EPOCH) return { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH };
  return { leaderEpoch: epoch, endOffset: logStartOffset };
}

export const DEFAULT_CONFIG: BrokerConfig = {
  host: '127.0.0.1',
  port: 9092,
  dataDir: './data',
  partitions: 1,
  advertisedListener: undefined,
  autoCreateTopics: true,
  segmentBytes: 64 * 1024 * 1024,
  segmentMs: 7 * 24 * 3600 * 1000,
  flush: 'none',
  retentionMs: 7 * 24 * 3600 * 1000,
  retentionBytes: -1,
  retentionCheckIntervalMs: 300_000,
  producerIdExpirationMs: 86_400_000,
  messageTimestampAfterMaxMs: 3_600_000,
  maxRequestBytes: 104_857_600,
  maxPendingRequestBytes: 512 * 1024 * 1024,
  maxConnections: 1000,
  idleTimeoutMs: 600_000,
  maxQueuedResponsesPerConnection: 100,
  fetchMaxBytes: 55 * 1024 * 1024,
  tls: undefined,
  saslUsersFile: undefined,
  failedAuthenticationDelayMs: 1000,
};

/** Node's timers wait at most this long; a longer delay fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
const INT32_MAX = 2 ** 31 - 1;
const ANY = Number.MAX_SAFE_INTEGER;

/**
 * The whole numbers each numeric setting takes, `brook serve`'s flags and startBroker's options
 * alike: Kafka's bounds where it has them (-1 for "no limit" where Kafka allows it), a timer's
 * longest wait for what brook sets a timer with, and lower bounds below which brook cannot work.
 */
export const SETTING_RANGES = {
  port: [0, 65535],
  partitions: [1, 100_000],
  segmentBytes: [14, INT32_MAX],
  segmentMs: [1, ANY],
  retentionMs: [-1, ANY],
  retentionBytes: [-1, ANY],
  retentionCheckIntervalMs: [1, MAX_TIMER_MS],
  producerIdExpirationMs: [1, ANY],
  messageTimestampAfterMaxMs: [0, ANY],
  maxRequestBytes: [64, INT32_MAX],
  maxPendingRequestBytes: [1024, ANY],
  maxConnections: [1, ANY],
  idleTimeoutMs: [1, MAX_TIMER_MS],
  maxQueuedResponsesPerConnection: [1, ANY],
  fetchMaxBytes: [1024, INT32_MAX],
  failedAuthenticationDelayMs: [0, MAX_TIMER_MS],
} as const satisfies Partial<Record<keyof BrokerConfig, readonly [number, number]>>;

/** Parses `none`, `always` or `interval:<ms>`. */
export function parseFlushPolicy(text: string): FlushPolicy {
  if (text === 'none' || text === 'always') return text;
  const m = /^interval:([1-9][0-9]*)$/.exec(text);
  if (m && Number(m[1]) <= MAX_TIMER_MS) return { intervalMs: Number(m[1]) };
  throw new Error(`--flush must be none, always or interval:<ms> (ms from 1 to ${MAX_TIMER_MS}), not '${text}'`);
}
