/**
 * What Produce decided for each idempotent producer of each partition: counts of accepted,
 * duplicate, out-of-order and fenced batches, and a way to be told of each decision (the web
 * console's live producers view). Kept beside each partition's log, so a deleted partition's go
 * with it, and bounded: past MAX_PER_PARTITION producers of one partition, the one counted first
 * is forgotten.
 */
import type { Verdict } from '../idempotence/rules.js';

export type VerdictCounts = Record<Verdict['kind'], number>;

export interface ProducerDecision {
  readonly topic: string;
  readonly partition: number;
  readonly producerId: bigint;
  readonly verdict: Verdict['kind'];
}

const MAX_PER_PARTITION = 1000;

export class ProducerActivity {
  /** By partition log, then producer id, in the order first counted. */
  private readonly counts = new WeakMap<object, Map<bigint, VerdictCounts>>();
  private readonly listeners = new Set<(decision: ProducerDecision) => void>();

  constructor(private readonly maxPerPartition = MAX_PER_PARTITION) {}

  /** On the produce path: a lookup and an addition, no key built. */
  record(log: object, topic: string, partition: number, producerId: bigint, verdict: Verdict['kind']): void {
    let producers = this.counts.get(log);
    if (producers === undefined) this.counts.set(log, (producers = new Map()));
    let counts = producers.get(producerId);
    if (counts === undefined) {
      if (producers.size >= this.maxPerPartition) producers.delete(producers.keys().next().value!);
      producers.set(producerId, (counts = { append: 0, duplicate: 0, out_of_order: 0, fenced: 0 }));
    }
    counts[verdict]++;
    for (const listener of this.listeners) listener({ topic, partition, producerId, verdict });
  }

  countsOf(log: object, producerId: bigint): Readonly<VerdictCounts> | undefined {
    return this.counts.get(log)?.get(producerId);
  }

  /** Calls `listener` on every decision from now on; returns what stops that. */
  listen(listener: (decision: ProducerDecision) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
