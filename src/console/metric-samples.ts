/** The metrics the Overview charts, sampled at intervals into a bounded ring: totals, from which the page draws rates. */
import type { BrokerMetrics } from '../metrics/broker-metrics.js';

export interface MetricSample {
  readonly time: number;
  readonly requests: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly duplicates: number;
  readonly connections: number;
}

/** The metric series each field of a sample adds up. */
const SERIES: Record<Exclude<keyof MetricSample, 'time'>, string> = {
  requests: 'brook_request_duration_seconds_count',
  bytesIn: 'brook_produce_bytes_total',
  bytesOut: 'brook_fetch_bytes_total',
  duplicates: 'brook_idempotent_batches_duplicate_total',
  connections: 'brook_open_connections',
};

export class MetricSamples {
  private readonly ring: MetricSample[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly listeners = new Set<(sample: MetricSample) => void>();

  constructor(
    private readonly metrics: BrokerMetrics,
    intervalMs: number,
    private readonly kept: number,
  ) {
    this.timer = setInterval(() => void this.take(), intervalMs).unref();
    void this.take();
  }

  get samples(): readonly MetricSample[] {
    return this.ring;
  }

  listen(listener: (sample: MetricSample) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async take(): Promise<void> {
    const metrics = await this.metrics.registry.getMetricsAsJSON();
    const sums = new Map<string, number>();
    for (const metric of metrics) {
      for (const v of metric.values) {
        const name = (v as { metricName?: string }).metricName ?? metric.name;
        sums.set(name, (sums.get(name) ?? 0) + v.value);
      }
    }
    const sample = { time: Date.now(), ...Object.fromEntries(Object.entries(SERIES).map(([field, name]) => [field, sums.get(name) ?? 0])) } as MetricSample;
    this.ring.push(sample);
    if (this.ring.length > this.kept) this.ring.shift();
    for (const listener of this.listeners) listener(sample);
  }
}
