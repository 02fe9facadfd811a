/**
 * One broker's Prometheus metrics. Each broker has its own registry, so several brokers in one
 * process (tests embedding brook) never share or clash over a metric.
 */
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Verdict } from '../idempotence/rules.js';
import { API_SCHEMAS } from '../protocol/messages/apis.js';
import { LatencyHistogram } from './latency-histogram.js';

/** Fetch long-polls for up to max.wait.ms, so the buckets reach well past a second. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What the log cleaner tells the metrics: its totals, and each compacted partition's dirty ratio. */
export interface CleanerFigures {
  readonly stats: {
    readonly bytesRead: number;
    readonly bytesWritten: number;
    readonly cleanings: number;
    readonly cleaningsAborted: number;
    readonly cleanSeconds: number;
    readonly lastCleanSeconds: number;
  };
  readonly dirtyRatios: () => readonly { readonly topic: string; readonly partition: number; readonly ratio: number }[];
}

/** What the group coordinator tells the metrics at each scrape, of which Kafka's GroupCoordinatorMetrics are made. */
export interface GroupFigures {
  /** Every group, with its protocol (`classic` or `consumer`) and state. */
  readonly groups: () => Iterable<{ readonly groupType: string; readonly state: string }>;
  /** Rebalances since the start: classic ones completed, consumer groups' epochs moved on. */
  readonly rebalances: () => { readonly classic: number; readonly consumer: number };
  /** Committed offsets held, one per group and partition. */
  readonly offsets: () => number;
}

/** Each protocol's states, so that a state without groups shows 0 (Kafka registers one gauge per state). */
const GROUP_STATES: Readonly<Record<string, readonly string[]>> = {
  classic: ['PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty'],
  consumer: ['Empty', 'Assigning', 'Reconciling', 'Stable', 'Dead'],
};

export class BrokerMetrics {
  readonly registry = new Registry();
  private readonly produceRequests = this.counter('brook_produce_requests_total', 'Produce requests received.');
  private readonly produceBatches = this.counter('brook_produce_batches_total', 'Valid record batches received in Produce requests.');
  private readonly produceBytes = this.counter('brook_produce_bytes_total', 'Bytes of the valid record batches received in Produce requests.');
  private readonly verdicts: Record<Verdict['kind'], Counter> = {
    append: this.counter('brook_idempotent_batches_accepted_total', 'Idempotent batches accepted and appended.'),
    duplicate: this.counter(
      'brook_idempotent_batches_duplicate_total',
      "Idempotent batches recognised as retries: answered with the first copy's offset, not appended.",
    ),
    out_of_order: this.counter('brook_idempotent_batches_out_of_order_total', 'Idempotent batches refused with OUT_OF_ORDER_SEQUENCE_NUMBER.'),
    fenced: this.counter('brook_idempotent_batches_fenced_total', 'Idempotent batches refused with INVALID_PRODUCER_EPOCH (an older epoch).'),
  };
  private readonly txnsBegun = this.counter('brook_transactions_begun_total', 'Transactions begun (their first AddPartitionsToTxn or AddOffsetsToTxn).');
  private readonly txnsEnded = new Counter({
    name: 'brook_transactions_ended_total',
    help: 'Transactions ended, by outcome: committed, aborted (by the producer or a new producer), timed_out (aborted by the broker, at a start too).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly fetchBytes = this.counter('brook_fetch_bytes_total', 'Record bytes sent in Fetch responses.');
  private readonly failedFetches = this.counter(
    'brook_failed_fetch_requests_total',
    "Partition reads in Fetch requests that failed on damaged or unreadable log data (Kafka's FailedFetchRequestsPerSec).",
  );
  private readonly faults = new Counter({
    name: 'brook_faults_fired_total',
    help: 'Requests installed faults acted on, by Kafka API and action.',
    labelNames: ['api', 'action'],
    registers: [this.registry],
  });
  private readonly denials = new Counter({
    name: 'brook_authorization_denied_total',
    help: 'Operations the authorizer refused that requests asked for, by resource type and operation.',
    labelNames: ['resource_type', 'operation'],
    registers: [this.registry],
  });
  private readonly latency = new LatencyHistogram(
    'brook_request_duration_seconds',
    'Time from a decoded request to its response, by Kafka API.',
    LATENCY_BUCKETS,
    (apiKey) => API_SCHEMAS[apiKey]?.name ?? String(apiKey),
    this.registry,
  );

  produceRequest(): void {
    this.produceRequests.inc();
  }

  batchReceived(bytes: number): void {
    this.produceBatches.inc();
    this.produceBytes.inc(bytes);
  }

  idempotence(verdict: Verdict['kind']): void {
    this.verdicts[verdict].inc();
  }

  transactionBegun(): void {
    this.txnsBegun.inc();
  }

  transactionEnded(outcome: 'committed' | 'aborted' | 'timed_out'): void {
    this.txnsEnded.inc({ outcome });
  }

  /** The open-transactions gauge reads `count` at each scrape. */
  countOpenTransactions(count: () => number): void {
    this.gaugeOf('brook_open_transactions', 'Transactions open now (Ongoing or being completed).', count);
  }

  /**
   * Kafka's per-partition LSO lag, summed: how many offsets below the high watermark
   * read_committed consumers cannot yet read, over every partition, at each scrape.
   */
  countUnstableOffsets(count: () => number): void {
    this.gaugeOf('brook_last_stable_offset_lag', 'Offsets between the last stable offset and the high watermark, summed over partitions.', count);
  }

  fetched(bytes: number): void {
    this.fetchBytes.inc(bytes);
  }

  fetchFailed(): void {
    this.failedFetches.inc();
  }

  faultFired(api: string, action: string): void {
    this.faults.inc({ api, action });
  }

  authorizationDenied(resourceType: string, operation: string): void {
    this.denials.inc({ resource_type: resourceType, operation });
  }

  /** The open-connections gauge reads `count` at each scrape. */
  countConnections(count: () => number): void {
    this.gaugeOf('brook_open_connections', 'Client connections open now.', count);
  }

  /** The process's own: CPU, memory, open files, event-loop lag, garbage collection (prom-client's defaults). */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Kafka's OfflineReplicaCount: partitions a write failed on, which take nothing until a restart. */
  countFailedPartitions(count: () => number): void {
    this.gaugeOf('brook_failed_partitions', 'Partitions whose log failed a write and takes nothing until a restart.', count);
  }

  countPartitionMemory(bytes: () => number): void {
    this.gaugeOf(
      'brook_partition_memory_bytes',
      'Memory partitions keep for their newest batches and those waiting to be written, within --partition-memory-bytes.',
      bytes,
    );
  }

  /** What the pool of --queued-max-request-bytes grants now, and the most it has at once. */
  countRequestMemory(pool: { readonly used: number; readonly peak: number }): void {
    this.gaugeOf(
      'brook_request_memory_bytes',
      'Memory granted to work in flight (requests until answered, records being decompressed, fetch answers until written), within --queued-max-request-bytes.',
      () => pool.used,
    );
    this.gaugeOf('brook_request_memory_peak_bytes', 'The most memory granted to work in flight at once since the broker started.', () => pool.peak);
  }

  /**
   * The log cleaner's figures, read at each scrape; named after Kafka's LogCleaner and
   * LogCleanerManager metrics where they have one (max-clean-time-secs, max-dirty-percent).
   */
  countCleaner(cleaner: CleanerFigures): void {
    const { stats } = cleaner;
    this.counterOf('brook_log_cleaner_read_bytes_total', 'Bytes of segments the log cleaner read, building offset maps and cleaning.', () => stats.bytesRead);
    this.counterOf('brook_log_cleaner_written_bytes_total', 'Bytes of cleaned segments the log cleaner wrote and swapped in.', () => stats.bytesWritten);
    this.counterOf('brook_log_cleaner_cleanings_total', 'Cleanings of a compacted partition run to their end.', () => stats.cleanings);
    this.counterOf(
      'brook_log_cleaner_cleanings_aborted_total',
      'Cleanings stopped midway (a shutdown, a config change, a deleted topic) or failed: recorded only as far as they swapped segments in.',
      () => stats.cleaningsAborted,
    );
    this.counterOf('brook_log_cleaner_clean_time_seconds_total', 'Seconds the log cleaner spent cleaning.', () => stats.cleanSeconds);
    this.gaugeOf(
      'brook_log_cleaner_max_clean_time_secs',
      "The last cleaning's seconds (Kafka's max-clean-time-secs, of its one cleaner thread).",
      () => stats.lastCleanSeconds,
    );
    this.gaugeOf(
      'brook_log_cleaner_max_dirty_percent',
      "The largest share, in percent, of a compacted partition's cleanable bytes not yet cleaned (Kafka's max-dirty-percent).",
      () => Math.round(100 * Math.max(0, ...cleaner.dirtyRatios().map((r) => r.ratio))),
    );
    new Gauge({
      name: 'brook_log_cleaner_dirty_ratio',
      help: "Each compacted partition's share of its cleanable bytes not yet cleaned, as the cleaner last found it.",
      labelNames: ['topic', 'partition'],
      registers: [this.registry],
      collect() {
        // Only the partitions there are now: a deleted topic's go.
        this.reset();
        for (const { topic, partition, ratio } of cleaner.dirtyRatios()) this.set({ topic, partition: String(partition) }, ratio);
      },
    });
  }

  /**
   * The group coordinator's figures, read at each scrape, named after Kafka's GroupCoordinatorMetrics:
   * group-count by protocol, consumer-group-count by state, the classic groups' NumGroups… by state,
   * group-completed-rebalance-count, consumer-group-rebalance-count and NumOffsets.
   */
  countGroups(figures: GroupFigures): void {
    const byState = (protocol: string): Map<string, number> => {
      const counts = new Map(GROUP_STATES[protocol]!.map((state) => [state, 0]));
      for (const g of figures.groups()) if (g.groupType === protocol) counts.set(g.state, (counts.get(g.state) ?? 0) + 1);
      return counts;
    };
    new Gauge({
      name: 'brook_group_count',
      help: "Groups by the rebalance protocol they use, classic or consumer (Kafka's group-count).",
      labelNames: ['protocol'],
      registers: [this.registry],
      collect() {
        const counts = new Map(Object.keys(GROUP_STATES).map((protocol) => [protocol, 0]));
        for (const g of figures.groups()) counts.set(g.groupType, (counts.get(g.groupType) ?? 0) + 1);
        for (const [protocol, n] of counts) this.set({ protocol }, n);
      },
    });
    const stateGauge = (name: string, protocol: string, help: string): void => {
      new Gauge({
        name,
        help,
        labelNames: ['state'],
        registers: [this.registry],
        collect() {
          for (const [state, n] of byState(protocol)) this.set({ state }, n);
        },
      });
    };
    stateGauge('brook_consumer_group_count', 'consumer', "Consumer-protocol groups by state (Kafka's consumer-group-count).");
    stateGauge(
      'brook_classic_group_count',
      'classic',
      "Classic-protocol groups by state (Kafka's NumGroupsPreparingRebalance, NumGroupsCompletingRebalance, NumGroupsStable, NumGroupsDead, NumGroupsEmpty).",
    );
    this.counterOf(
      'brook_group_completed_rebalances_total',
      "Classic group rebalances completed: a leader's SyncGroup made its group Stable (Kafka's group-completed-rebalance-count).",
      () => figures.rebalances().classic,
    );
    this.counterOf(
      'brook_consumer_group_rebalances_total',
      "Consumer group rebalances: a group's epoch moved on by a join, a leave, an expiry or a subscription change (Kafka's consumer-group-rebalance-count).",
      () => figures.rebalances().consumer,
    );
    this.gaugeOf('brook_group_offsets', "Committed offsets the group coordinator holds, one per group and partition (Kafka's NumOffsets).", figures.offsets);
  }

  /** Runs a request's handler, observing its latency once its result (or promised result) is there. */
  timeRequest<R>(apiKey: number, handle: () => R): R {
    const start = performance.now();
    const observe = (): void => this.latency.observe(apiKey, (performance.now() - start) / 1000);
    const result = handle();
    // then(), not finally(): finally() takes two more turns of the microtask queue per request.
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => {
          observe();
          return value;
        },
        (err: unknown) => {
          observe();
          throw err;
        },
      ) as R;
    }
    observe();
    return result;
  }

  private counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }

  /** A counter that reads its total, which only grows, at each scrape. */
  private counterOf(name: string, help: string, total: () => number): void {
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(total());
      },
    });
  }

  /** A gauge that reads `count` at each scrape. */
  private gaugeOf(name: string, help: string, count: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(count());
      },
    });
  }
}
