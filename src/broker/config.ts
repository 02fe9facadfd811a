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

/** Parses `none`, `always` or `interval:<ms>`. */
export function parseFlushPolicy(text: string): FlushPolicy {
  if (text === 'none' || text === 'always') return text;
  const m = /^interval:([1-9][0-9]*)$/.exec(text);
  if (m) return { intervalMs: Number(m[1]) };
  throw new Error(`--flush must be none, always or interval:<ms>, not '${text}'`);
}

/** Parses HOST:PORT (an IPv6 host in brackets). */
export function parseHostPort(text: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):([0-9]+)$/.exec(text);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) throw new Error(`'${text}' is not HOST:PORT`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}
