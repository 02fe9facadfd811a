/** Settings of a partition log, named after their Kafka topic configs, and the logger it reports to. */

/**
 * When appended data is fsynced. 'none': never on the acknowledgement path (survives a process
 * crash, not a power cut); interval: every intervalMs, acknowledgements do not wait for it;
 * 'always': before the acknowledgement, one fsync covering every write since the last.
 */
export type FlushPolicy = 'none' | 'always' | { readonly intervalMs: number };

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
  readonly logger?: LogSink;
}

export interface Reporter {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export type ResolvedLogOptions = Required<Omit<LogOptions, 'logger'>> & { readonly report: Reporter };

const MAX_SEGMENT_BYTES = 2 ** 31 - 1;

export function resolveLogOptions(options: LogOptions): ResolvedLogOptions {
  const resolved = {
    segmentBytes: options.segmentBytes ?? 64 * 1024 * 1024,
    segmentMs: options.segmentMs ?? 7 * 24 * 3600 * 1000,
    indexIntervalBytes: options.indexIntervalBytes ?? 4096,
    flush: options.flush ?? 'none',
    retentionMs: options.retentionMs ?? 7 * 24 * 3600 * 1000,
    retentionBytes: options.retentionBytes ?? -1,
    retentionCheckIntervalMs: options.retentionCheckIntervalMs ?? 300_000,
    producerIdExpirationMs: options.producerIdExpirationMs ?? 86_400_000,
    checkpointIntervalMs: options.checkpointIntervalMs ?? 60_000,
    tailCacheBytes: options.tailCacheBytes ?? 1024 * 1024,
    report: reporterOf(options.logger),
  };
  // Positions in the index are 32-bit.
  if (!(resolved.segmentBytes >= 1 && resolved.segmentBytes <= MAX_SEGMENT_BYTES)) {
    throw new RangeError(`segmentBytes must be between 1 and ${MAX_SEGMENT_BYTES}`);
  }
  if (!(resolved.indexIntervalBytes >= 1)) throw new RangeError('indexIntervalBytes must be positive');
  if (typeof resolved.flush === 'object' && !(resolved.flush.intervalMs > 0)) throw new RangeError('flush intervalMs must be positive');
  return resolved;
}

function reporterOf(sink: LogSink | undefined): Reporter {
  if (sink === undefined) return { info: () => {}, warn: () => {} };
  if (typeof sink === 'function') return { info: sink, warn: sink };
  return {
    info: (msg, fields) => sink.info(fields ?? {}, msg),
    warn: (msg, fields) => sink.warn(fields ?? {}, msg),
  };
}
