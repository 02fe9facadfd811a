/**
 * What Produce decided for each idempotent producer of a partition: counts of accepted,
 * duplicate, out-of-order and fenced batches (`ProducerCounts`, one per partition, kept by its
 * `Partition`, so a deleted partition's go with it), and a way to be told of each decision (the
 * web console's live producers view). Bounded: past MAX_PER_PARTITION producers of one
 * partition, the one counted first is forgotten.
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

/** One partition's counts, by producer id in the order first counted. */
export class ProducerCounts {
  private readonly counts = new Map<bigint, VerdictCounts>();

  constructor(private readonly maxProducers = MAX_PER_PARTITION) {}

  /** On the produce path: a lookup and an addition. */
  record(producerId: bigint, verdict: Verdict['kind']): void {
    let counts = this.counts.get(producerId);
    if (counts === undefined) {
      if (this.counts.size >= this.maxProducers) this.counts.delete(this.counts.keys().next().value!);
      this.counts.set(producerId, (counts = { append: 0, duplicate: 0, out_of_order: 0, fenced: 0 }));
    }
    counts[verdict]++;
  }

  of(producerId: bigint): Readonly<VerdictCounts> | undefined {
    return this.counts.get(producerId);
  }
}

/** Tells its listeners of every partition's decisions. */
export class ProducerActivity {
  private readonly listeners = new Set<(decision: ProducerDecision) => void>();

  /** On the produce path: no object made while none listens. */
  tell(topic: string, partition: number, producerId: bigint, verdict: Verdict['kind']): void {
    for (const listener of this.listeners) listener({ topic, partition, producerId, verdict });
  }

  /** Calls `listener` on every decision from now on; returns what stops that. */
  listen(listener: (decision: ProducerDecision) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
