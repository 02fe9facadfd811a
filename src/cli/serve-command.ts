import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { pino } from 'pino';
import { parseFlushPolicy, DEFAULT_CONFIG, SETTING_RANGES as R } from '../broker/config.js';
import { parseHostPort } from '../server/host-port.js';
import { startBroker } from '../broker/start-broker.js';
import { TIMESTAMP_TYPES, type TimestampType } from '../protocol/record-batch.js';
import { describeStartupError } from './startup-error.js';
import { parseFaultSpec } from './fault-spec.js';
import type { FaultRule } from '../faults/rule.js';

export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (text: string): number => {
    const n = Number(text);
    if (!/^-?[0-9]+$/.test(text) || n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    return n;
  };
}

function parsed<T>(parse: (text: string) => T) {
  return (text: string): T => {
    try {
      return parse(text);
    } catch (err) {
      throw new InvalidArgumentError(`${(err as Error).message}.`);
    }
  };
}

/** A PEM file's contents, read when the flag is parsed so that a bad path is reported as such. */
function pemFile(text: string): Buffer {
  try {
    return readFileSync(text);
  } catch (err) {
    throw new InvalidArgumentError(`cannot read ${text}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
  }
}

interface ServeOptions {
  host: string;
  port: number;
  dataDir: string;
  partitions: number;
  advertisedListener?: { host: string; port: number };
  autoCreateTopics: boolean;
  segmentBytes: number;
  segmentMs: number;
  flush: ReturnType<typeof parseFlushPolicy>;
  retentionMs: number;
  retentionBytes: number;
  retentionCheckIntervalMs: number;
  producerIdExpirationMs: number;
  messageTimestampAfterMaxMs: number;
  messageTimestampBeforeMaxMs: number;
  messageTimestampType: TimestampType;
  maxRequestBytes: number;
  maxConnections: number;
  queuedMaxRequestBytes: number;
  fetchMaxBytes: number;
  tlsCert?: Buffer;
  tlsKey?: Buffer;
  tlsCa?: Buffer;
  tlsClientAuth: 'none' | 'requested' | 'required';
  saslUsers?: string;
  failedAuthenticationDelayMs: number;
  connectionsMaxIdleMs: number;
  logLevel: string;
  metricsPort?: number;
  fault: FaultRule[];
}

export function addServeCommand(program: Command): void {
  const d = DEFAULT_CONFIG;
  program
    .command('serve')
    .description('run the broker')
    .option('--host <host>', 'address to listen on', d.host)
    .option('--port <port>', 'port to listen on', integer(...R.port), d.port)
    .option('--data-dir <dir>', 'where the log and metadata are kept', d.dataDir)
    .option('--partitions <n>', 'partitions of automatically created topics (num.partitions)', integer(...R.partitions), d.partitions)
    .option('--advertised-listener <host:port>', 'address given to clients in Metadata (advertised.listeners)', parsed(parseHostPort))
    .option('--no-auto-create-topics', 'do not create topics named in Metadata requests (auto.create.topics.enable=false)')
    .option('--segment-bytes <n>', 'roll a log segment at this size (segment.bytes)', integer(...R.segmentBytes), d.segmentBytes)
    .option('--segment-ms <ms>', 'roll a log segment after this time (segment.ms)', integer(...R.segmentMs), d.segmentMs)
    .option('--flush <policy>', 'none | interval:<ms> | always', parsed(parseFlushPolicy), d.flush)
    .option('--retention-ms <ms>', 'delete segments older than this; -1 keeps them (retention.ms)', integer(...R.retentionMs), d.retentionMs)
    .option('--retention-bytes <n>', 'delete old segments past this partition size; -1 keeps them (retention.bytes)', integer(...R.retentionBytes), d.retentionBytes)
    .option('--retention-check-interval-ms <ms>', 'how often retention and producer expiration run (log.retention.check.interval.ms)', integer(...R.retentionCheckIntervalMs), d.retentionCheckIntervalMs)
    .option('--producer-id-expiration-ms <ms>', 'forget an idle producer after this (producer.id.expiration.ms)', integer(...R.producerIdExpirationMs), d.producerIdExpirationMs)
    .option('--message-timestamp-after-max-ms <ms>', 'refuse batches stamped further ahead of the broker clock (log.message.timestamp.after.max.ms)', integer(...R.messageTimestampAfterMaxMs), d.messageTimestampAfterMaxMs)
    .option('--message-timestamp-before-max-ms <ms>', 'refuse records stamped further behind the broker clock (log.message.timestamp.before.max.ms)', integer(...R.messageTimestampBeforeMaxMs), d.messageTimestampBeforeMaxMs)
    .addOption(new Option('--message-timestamp-type <type>', 'keep the producer\'s record times, or stamp the broker\'s at append (log.message.timestamp.type)').choices(TIMESTAMP_TYPES).default(d.messageTimestampType))
    .option('--max-request-bytes <n>', 'largest request accepted (socket.request.max.bytes)', integer(...R.maxRequestBytes), d.maxRequestBytes)
    .option('--queued-max-request-bytes <n>', 'memory for requests received in part, all connections together (queued.max.request.bytes)', integer(...R.maxPendingRequestBytes), d.maxPendingRequestBytes)
    .option('--fetch-max-bytes <n>', 'most record bytes in one Fetch answer, and in a connection\'s unsent answers (fetch.max.bytes)', integer(...R.fetchMaxBytes), d.fetchMaxBytes)
    .option('--max-connections <n>', 'connections accepted at once (max.connections)', integer(...R.maxConnections), d.maxConnections)
    .option('--connections-max-idle-ms <ms>', 'close connections idle this long (connections.max.idle.ms)', integer(...R.idleTimeoutMs), d.idleTimeoutMs)
    .option('--tls-cert <file>', 'PEM certificate chain: listen with TLS (with --tls-key)', pemFile)
    .option('--tls-key <file>', 'PEM private key of --tls-cert', pemFile)
    .option('--tls-ca <file>', 'PEM CA certificates that client certificates must be signed by', pemFile)
    .addOption(new Option('--tls-client-auth <mode>', 'ask clients for a certificate (ssl.client.auth)').choices(['none', 'requested', 'required']).default('none'))
    .option('--sasl-users <file>', 'require SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) with the users in this file (see brook add-user)')
    .option('--failed-authentication-delay-ms <ms>', 'wait this long before answering a failed authentication (connection.failed.authentication.delay.ms)', integer(...R.failedAuthenticationDelayMs), d.failedAuthenticationDelayMs)
    .addOption(new Option('--log-level <level>', 'how much to log').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'))
    .option('--metrics-port <port>', 'serve Prometheus metrics at http://HOST:PORT/metrics (0: a free port)', integer(...R.port))
    .option('--fault <spec>', 'inject a fault, e.g. Produce,dropResponse,probability=5% (repeatable; see the README)', (spec, rules: FaultRule[]) => [...rules, parsed(parseFaultSpec)(spec)], [])
    .action(async (o: ServeOptions) => {
      if ((o.tlsCert === undefined) !== (o.tlsKey === undefined)) throw new Error('--tls-cert and --tls-key go together.');
      const tls = o.tlsCert === undefined || o.tlsKey === undefined ? undefined : { cert: o.tlsCert, key: o.tlsKey, ca: o.tlsCa, clientAuth: o.tlsClientAuth };
      const logger = pino({ level: o.logLevel });
      const broker = await startBroker({
        host: o.host,
        port: o.port,
        dataDir: o.dataDir,
        partitions: o.partitions,
        advertisedListener: o.advertisedListener,
        autoCreateTopics: o.autoCreateTopics,
        segmentBytes: o.segmentBytes,
        segmentMs: o.segmentMs,
        flush: o.flush,
        retentionMs: o.retentionMs,
        retentionBytes: o.retentionBytes,
        retentionCheckIntervalMs: o.retentionCheckIntervalMs,
        producerIdExpirationMs: o.producerIdExpirationMs,
        messageTimestampAfterMaxMs: o.messageTimestampAfterMaxMs,
        messageTimestampBeforeMaxMs: o.messageTimestampBeforeMaxMs,
        messageTimestampType: o.messageTimestampType,
        maxRequestBytes: o.maxRequestBytes,
        maxConnections: o.maxConnections,
        maxPendingRequestBytes: o.queuedMaxRequestBytes,
        fetchMaxBytes: o.fetchMaxBytes,
        tls,
        saslUsersFile: o.saslUsers,
        failedAuthenticationDelayMs: o.failedAuthenticationDelayMs,
        idleTimeoutMs: o.connectionsMaxIdleMs,
        logger,
        metricsPort: o.metricsPort,
        faults: o.fault,
      }).catch((err: unknown) => {
        throw new Error(describeStartupError(err, { host: o.host, port: o.port, dataDir: o.dataDir }));
      });
      const stop = (signal: NodeJS.Signals): void => {
        // A hang-up of the terminal brook writes to leaves it nowhere to write: a write would fail.
        const speaks = signal !== 'SIGHUP' || !process.stdout.isTTY;
        if (speaks) logger.info({ signal }, 'stopping');
        broker.close().then(
          () => {
            if (speaks) logger.info('stopped');
            // Stopped cleanly, then ended by the hang-up itself, as by default: a normal exit with
            // the terminal gone aborts in Node's own reset of it.
            if (signal === 'SIGHUP') process.kill(process.pid, signal);
            else process.exit(0);
          },
          (err: Error) => {
            logger.error({ err }, 'unclean stop');
            process.exit(1);
          },
        );
      };
      // SIGHUP too, as a JVM running Kafka stops cleanly on it; Node's default would end brook at once.
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
      // Announced only once the signals are handled, so that a stop right after it is a clean one.
      process.stdout.write(`brook listening on ${broker.bootstrap}\n`);
    });
}
