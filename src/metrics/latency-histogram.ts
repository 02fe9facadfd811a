/**
 * Request latency per Kafka API as a Prometheus histogram that prom-client renders at scrape
 * time. Observing is on every request's path, so it is a bucket search and a few additions on
 * arrays made once per API: prom-client's own Histogram validates and hashes the labels and
 * builds objects on each observation, which cost about 4% of a produce request's CPU.
 */
import type { Metric, MetricValueWithName, Registry } from 'prom-client';

/** What prom-client's registry reads from a metric at scrape time. */
interface Rendered {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly aggregator: 'sum';
  readonly values: MetricValueWithName<string>[];
}

interface Series {
  readonly api: string;
  /** Observations per bucket (not cumulative); the last slot is past the largest bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export class LatencyHistogram {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly series = new Map<number, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    /** Upper bounds in seconds, ascending. */
    private readonly bounds: readonly number[],
    private readonly apiName: (apiKey: number) => string,
    registry: Registry,
  ) {
    // prom-client types only its own metric classes; its registry needs just get() and the fields above.
    registry.registerMetric(this as unknown as Metric);
  }

  observe(apiKey: number, seconds: number): void {
    let series = this.series.get(apiKey);
    if (series === undefined) {
      series = { api: this.apiName(apiKey), counts: new Float64Array(this.bounds.length + 1), sum: 0, count: 0 };
      this.series.set(apiKey, series);
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += seconds;
    series.count++;
  }

  /** registry.resetMetrics() starts every metric over. */
  reset(): void {
    this.series.clear();
  }

  /** What prom-client's registry renders: cumulative buckets, then sum and count, per API. */
  async get(): Promise<Rendered> {
    const values: MetricValueWithName<string>[] = [];
    for (const { api, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += counts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le, api }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf', api }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels: { api }, value: sum });
      values.push({ metricName: `${this.name}_count`, labels: { api }, value: count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
