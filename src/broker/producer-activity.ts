/**
 * What Produce decided for each idempotent producer of each partition: counts of accepted,
 * duplicate, out-of-order and fenced batches, and a way to be told of each decision (the web
 * console's live producers view). Bounded: past MAX_TRACKED (partition, producer) pairs the one
 * that wrote least recently is forgotten.
 */
import type { Verdict } from '../idempotence/rules.js';

export type VerdictCounts = Record<Verdict['kind'], number>;

export interface ProducerDecision {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: bigint;
  readonly verdict: Verdict['kind'];
}

const MAX_TRACKED = 100_000;

export class ProducerActivity {
  /** In order of last decision, oldest first, so the first key is the one to forget. */
  private readonly counts = new Map<string, VerdictCounts>();
  private readonly listeners = new Set<(decision: ProducerDecision) => void>();

  constructor(private readonly maxTracked = MAX_TRACKED) {}

  record(decision: ProducerDecision): void {
    const key = keyOf(decision.topic, decision.partition, decision.producerId);
    const counts = this.counts.get(key) ?? { append: 0, duplicate: 0, out_of_order: 0, fenced: 0 };
    counts[decision.verdict]++;
    this.counts.delete(key);
    this.counts.set(key, counts);
    if (this.counts.size > this.maxTracked) this.counts.delete(this.counts.keys().next().value!);
    for (const listener of this.listeners) listener(decision);
  }

  countsOf(topic: string, partition: number, producerId: bigint): VerdictCounts | undefined {
    return this.counts.get(keyOf(topic, partition, producerId));
  }

  /** Calls `listener` on every decision from now on; returns what stops that. */
  listen(listener: (decision: ProducerDecision) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const keyOf = (topic: string, partition: number, producerId: bigint): string => `${topic}\u0000${partition}\u0000${producerId}`;
