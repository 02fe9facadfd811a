/**
 * Who leads each partition of a simulated cluster, at which leader epoch, and which nodes are up:
 * several node ids in front of one store, so there is one copy of each partition and any live
 * node may lead it. Pure: the broker tells it where each log ends when a leadership moves.
 *
 * Rules: every partition has exactly one leader, a live node; its leader epoch grows by one at
 * each change of leader and never shrinks; the last live node cannot stop.
 */
import { placeReplicas } from './placement.js';

/** Where one leader epoch began: the log end offset when its leader took over. */
export interface EpochStart {
  readonly epoch: number;
  readonly startOffset: number;
}

export interface PartitionLeadership {
  /** The replica nodes, the preferred leader first. */
  readonly replicas: readonly number[];
  readonly leader: number;
  readonly epoch: number;
  /** Each epoch's start, oldest first, the current one last. */
  readonly epochs: readonly EpochStart[];
}

/** Kafka's UNDEFINED_EPOCH, and the offset answered with it. */
const UNDEFINED = -1;
/** Epochs remembered per partition: the oldest are forgotten past this many. */
const KEPT_EPOCHS = 1000;

interface Placed {
  replicas: number[];
  leader: number;
  epoch: number;
  epochs: EpochStart[];
}

/** What a restart keeps of the leaderships: plain data, as stored. */
export interface LeadershipState {
  /** The node ids the leaderships were made over. */
  readonly nodes: readonly number[];
  /** By topic key, the replication factor of partitions to come and each placed partition. */
  readonly topics: Readonly<Record<string, { readonly replicationFactor: number; readonly partitions: readonly PartitionLeadership[] }>>;
}

export class Leadership {
  private readonly down = new Set<number>();
  /** By topic key (a topic's id), its partitions placed so far, and the replication factor of those to come. */
  private readonly topics = new Map<string, { replicationFactor: number; partitions: Placed[] }>();
  /** Grows at each change of what `state()` gives, so that a keeper stores only what changed. */
  private changed = 0;

  /** `nodes`: the node ids, ascending. */
  constructor(readonly nodes: readonly number[]) {}

  isLive(node: number): boolean {
    return this.nodes.includes(node) && !this.down.has(node);
  }

  live(): number[] {
    return this.nodes.filter((n) => !this.down.has(n));
  }

  /** Partition `index` of the topic `key`, placed over the live nodes when first asked for. */
  partition(key: string, index: number): PartitionLeadership {
    const topic = this.topic(key);
    const live = this.live();
    while (topic.partitions.length <= index) {
      const replicas = placeReplicas(live, topic.partitions.length, Math.min(topic.replicationFactor, live.length));
      topic.partitions.push({ replicas, leader: replicas[0]!, epoch: 0, epochs: [{ epoch: 0, startOffset: 0 }] });
      this.changed++;
    }
    return topic.partitions[index]!;
  }

  /** The replication factor of the topic's partitions not yet placed (1 unless set). */
  setReplicationFactor(key: string, replicationFactor: number): void {
    this.topic(key).replicationFactor = replicationFactor;
    this.changed++;
  }

  /** Places the topic's partitions on the replicas given, the first of each leading. */
  assign(key: string, assignments: readonly (readonly number[])[]): void {
    const topic = this.topic(key);
    for (const replicas of assignments) {
      const leader = replicas.find((n) => this.isLive(n)) ?? this.live()[0]!;
      topic.partitions.push({ replicas: [...replicas], leader, epoch: 0, epochs: [{ epoch: 0, startOffset: 0 }] });
    }
    this.changed++;
  }

  /** A deleted topic's partitions are forgotten. */
  forget(key: string): void {
    if (this.topics.delete(key)) this.changed++;
  }

  /** The in-sync replicas: with one copy stored, the live ones. */
  isr(p: PartitionLeadership): number[] {
    return p.replicas.filter((n) => !this.down.has(n));
  }

  /**
   * Makes `node` lead the partition, from `logEndOffset`, at the next epoch; a node not among its
   * replicas takes the old leader's place among them. Moving to the leader itself changes nothing.
   */
  moveLeader(key: string, index: number, node: number, logEndOffset: number): void {
    if (!this.isLive(node)) throw new RangeError(`node ${node} is not a live node of ${this.nodes.join(', ')}`);
    const p = this.partition(key, index) as Placed;
    if (p.leader === node) return;
    if (!p.replicas.includes(node)) p.replicas[p.replicas.indexOf(p.leader)] = node;
    p.leader = node;
    p.epoch++;
    p.epochs.push({ epoch: p.epoch, startOffset: logEndOffset });
    if (p.epochs.length > KEPT_EPOCHS) p.epochs.shift();
    this.changed++;
  }

  /**
   * Takes `node` down: each partition it leads moves to its first live replica, else to the
   * first live node, as Kafka's controller elects a new leader from the ISR.
   */
  stop(node: number, logEndOffset: (key: string, index: number) => number): void {
    if (!this.isLive(node)) return;
    if (this.live().length === 1) throw new RangeError(`node ${node} is the last live node`);
    this.down.add(node);
    for (const [key, topic] of this.topics) {
      topic.partitions.forEach((p, index) => {
        if (p.leader !== node) return;
        const next = p.replicas.find((n) => this.isLive(n)) ?? this.live()[0]!;
        this.moveLeader(key, index, next, logEndOffset(key, index));
      });
    }
  }

  /** Brings `node` back: it is a live replica again, and leads what it is moved to from then on. */
  start(node: number): void {
    if (!this.nodes.includes(node)) throw new RangeError(`no node ${node} among ${this.nodes.join(', ')}`);
    this.down.delete(node);
  }

  /** Every topic key with its placed partitions. */
  *placed(): Iterable<[key: string, partitions: readonly PartitionLeadership[]]> {
    for (const [key, topic] of this.topics) yield [key, topic.partitions];
  }

  /** How many changes `state()` has seen: it differs from an earlier count once the state has changed. */
  get changes(): number {
    return this.changed;
  }

  /** The leaderships as plain data, which `restore` takes back; which nodes are down is not kept. */
  state(): LeadershipState {
    const topics: Record<string, LeadershipState['topics'][string]> = {};
    for (const [key, t] of this.topics)
      topics[key] = {
        replicationFactor: t.replicationFactor,
        partitions: t.partitions.map((p) => ({ replicas: [...p.replicas], leader: p.leader, epoch: p.epoch, epochs: p.epochs.map((e) => ({ ...e })) })),
      };
    return { nodes: [...this.nodes], topics };
  }

  /**
   * Takes back the leaderships `state()` gave, every node live, if they were made over these
   * nodes (else a RangeError, and nothing changes): a restart keeps leaders and epochs.
   */
  restore(state: LeadershipState): void {
    if (state.nodes.length !== this.nodes.length || state.nodes.some((n, i) => n !== this.nodes[i]))
      throw new RangeError(`the leaderships kept are over nodes ${state.nodes.join(', ')}, not ${this.nodes.join(', ')}`);
    this.down.clear();
    this.topics.clear();
    for (const [key, t] of Object.entries(state.topics))
      this.topics.set(key, {
        replicationFactor: t.replicationFactor,
        partitions: t.partitions.map((p) => ({ replicas: [...p.replicas], leader: p.leader, epoch: p.epoch, epochs: p.epochs.map((e) => ({ ...e })) })),
      });
    this.changed++;
  }

  private topic(key: string): { replicationFactor: number; partitions: Placed[] } {
    let topic = this.topics.get(key);
    if (topic === undefined) this.topics.set(key, (topic = { replicationFactor: 1, partitions: [] }));
    return topic;
  }
}

/**
 * Where leader epoch `requested` ended, as Kafka's `LeaderEpochFileCache.endOffsetFor` answers it:
 * the current epoch at the log end; an earlier one where the next began, named by the newest
 * epoch not after it; a later one (or -1) is undefined. Epochs wholly before the log start end
 * at it, as the cache's `truncateFromStart` leaves them.
 */
export function epochEnd(p: PartitionLeadership, requested: number, logStartOffset: number, logEndOffset: number): { leaderEpoch: number; endOffset: number } {
  if (requested === UNDEFINED || requested > p.epoch) return { leaderEpoch: UNDEFINED, endOffset: UNDEFINED };
  if (requested === p.epoch) return { leaderEpoch: requested, endOffset: logEndOffset };
  const higher = p.epochs.findIndex((e) => e.epoch > requested);
  const floor = higher > 0 ? p.epochs[higher - 1]! : undefined;
  return { leaderEpoch: floor?.epoch ?? requested, endOffset: Math.max(p.epochs[higher]!.startOffset, logStartOffset) };
}
