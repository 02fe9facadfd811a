/**
 * The nodes a broker serves (`nodes`): one node by default, or a simulated cluster of several
 * node ids in front of one store. Handlers ask it who leads a partition, at which epoch, which
 * nodes are live and where they listen, and which node coordinates a group or transactional id.
 */
import { epochEnd, Leadership, type PartitionLeadership } from '../cluster/leadership.js';
import type { Storage, TopicInfo } from '../log/storage.js';
import { COORDINATOR_TOPICS, isInternalTopic } from '../settings/internal-topics.js';
import type { BrokerConfig } from '../settings/settings.js';
import { ClusterStore } from './cluster-store.js';
import { NODE_ID } from './config.js';
import { keyPartition } from './coordinator-log.js';

interface ClusterLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface NodeAddress {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
}

/** Kafka's offsets.topic.replication.factor and transaction.state.log.replication.factor, at their defaults. */
const COORDINATOR_REPLICATION = 3;

export class Cluster {
  readonly leadership: Leadership;
  private readonly addresses = new Map<number, { host: string; port: number }>();
  /** Nodes whose listener is closed. */
  readonly stopped = new Set<number>();
  /** Nodes whose listener answers nothing. */
  readonly isolated = new Set<number>();
  private storage: Storage | undefined;
  /** Where the leaderships are kept, with several nodes; the change count last kept, and the write keeping it. */
  private store: ClusterStore | undefined;
  private keptChanges = -1;
  private kept: Promise<void> = Promise.resolve();
  private nextKeep: Promise<void> | undefined;
  private log: ClusterLog | undefined;

  constructor(
    nodes: number,
    private readonly config: BrokerConfig,
  ) {
    this.leadership = new Leadership(Array.from({ length: nodes }, (_, i) => NODE_ID + i));
    for (const topic of Object.values(COORDINATOR_TOPICS)) this.leadership.setReplicationFactor(topic, Math.min(COORDINATOR_REPLICATION, nodes));
  }

  /** More than one node: requests may reach a node that does not lead or coordinate what they name. */
  get simulated(): boolean {
    return this.leadership.nodes.length > 1;
  }

  /**
   * The store of the broker's current start. At the first, with several nodes, the leaderships
   * kept in the data directory come back if they were made over the same nodes.
   */
  async attach(storage: Storage, dataDir: string, log: ClusterLog): Promise<void> {
    this.storage = storage;
    this.log = log;
    if (!this.simulated || this.store !== undefined) return;
    const store = new ClusterStore(dataDir);
    const state = await store.read();
    if (state !== undefined) {
      try {
        this.leadership.restore(state);
      } catch (err) {
        log.warn({ err }, 'leaderships kept in the data directory are not taken back: placed anew');
      }
      // Topics deleted since are not kept again.
      const keys = new Set<string>([...storage.topics().map(leadershipKey), ...Object.values(COORDINATOR_TOPICS)]);
      for (const [key] of [...this.leadership.placed()]) if (!keys.has(key)) this.leadership.forget(key);
    }
    this.store = store;
    this.keptChanges = this.leadership.changes;
  }

  /** Resolves once every change of leadership so far is kept in the data directory. */
  saved(): Promise<void> {
    return this.keep();
  }

  /**
   * Writes the leaderships if they changed since last kept: one write at a time, the next one
   * taking every change made until it starts.
   */
  private keep(): Promise<void> {
    const store = this.store;
    if (store === undefined || this.leadership.changes === this.keptChanges) return this.kept;
    this.keptChanges = this.leadership.changes;
    if (this.nextKeep === undefined) {
      this.nextKeep = this.kept.then(() => {
        this.nextKeep = undefined;
        return store.write(this.leadership.state()).catch((err: unknown) => {
          // Kept at the next change.
          this.keptChanges = -1;
          this.log?.error({ err }, 'keeping the leaderships in the data directory failed');
        });
      });
      this.kept = this.nextKeep;
    }
    return this.kept;
  }

  /** Where node `nodeId` is reached. */
  setAddress(nodeId: number, host: string, port: number): void {
    this.addresses.set(nodeId, { host, port });
  }

  address(nodeId: number): NodeAddress {
    const { host, port } = this.addresses.get(nodeId)!;
    return { nodeId, host, port };
  }

  /** Every node, with where it listens and whether it is live, stopped or isolated (the console's list). */
  nodeStates(): (NodeAddress & { readonly state: 'live' | 'stopped' | 'isolated' })[] {
    return this.leadership.nodes.map((n) => ({
      ...this.address(n),
      state: this.stopped.has(n) ? 'stopped' : this.isolated.has(n) ? 'isolated' : 'live',
    }));
  }

  /** The live nodes, as Metadata and DescribeCluster list them. */
  brokers(): NodeAddress[] {
    return this.leadership.live().map((n) => this.address(n));
  }

  /** The controller Metadata names: the first live node. */
  get controller(): number {
    return this.leadership.live()[0]!;
  }

  /** Partition `index` of `topic` (which has it). */
  partitionOf(topic: TopicInfo, index: number): PartitionLeadership {
    const p = this.leadership.partition(leadershipKey(topic), index);
    void this.keep();
    return p;
  }

  /** Partition `index` of the topic named `topic`; undefined if there is no such partition. */
  partition(topic: string, index: number): PartitionLeadership | undefined {
    const info = this.storage!.topic(topic);
    return info === undefined || index < 0 || index >= info.partitions ? undefined : this.partitionOf(info, index);
  }

  /** Partition `index` of `topic` as Metadata and DescribeTopicPartitions describe it. */
  describe(topic: TopicInfo, index: number): { leaderId: number; leaderEpoch: number; replicaNodes: number[]; isrNodes: number[]; offlineReplicas: number[] } {
    const p = this.partitionOf(topic, index);
    const isrNodes = this.isr(p);
    return {
      leaderId: p.leader,
      leaderEpoch: p.epoch,
      replicaNodes: [...p.replicas],
      isrNodes,
      offlineReplicas: p.replicas.filter((n) => !isrNodes.includes(n)),
    };
  }

  /** The leader epoch of partition `index` of `topic`, which the leader stamps on what it stores. */
  epochOf(topic: string, index: number): number {
    // One node leads everything from epoch 0 for good: Produce asks nothing more on its path.
    if (!this.simulated) return 0;
    return this.partition(topic, index)?.epoch ?? 0;
  }

  /** The partition's in-sync replicas. */
  isr(p: PartitionLeadership): number[] {
    return this.leadership.isr(p);
  }

  /** Where the partition's leader epoch `requested` ended (OffsetForLeaderEpoch). */
  epochEnd(p: PartitionLeadership, requested: number, logStartOffset: number, logEndOffset: number): { leaderEpoch: number; endOffset: number } {
    return epochEnd(p, requested, logStartOffset, logEndOffset);
  }

  /** The node coordinating group or transactional id `key`: the leader of its partition of the coordinators' topic. */
  coordinator(kind: keyof typeof COORDINATOR_TOPICS, key: string): number {
    const topic = COORDINATOR_TOPICS[kind];
    const { leader } = this.leadership.partition(topic, keyPartition(this.storage!, topic, this.config, key));
    void this.keep();
    return leader;
  }

  /** Sets the replication factor of a topic created with one; resolves once it is kept. */
  created(topic: TopicInfo, replicationFactor: number, assignments: readonly (readonly number[])[]): Promise<void> {
    if (assignments.length > 0) this.leadership.assign(leadershipKey(topic), assignments);
    else this.leadership.setReplicationFactor(leadershipKey(topic), replicationFactor);
    return this.keep();
  }

  /** Makes `node` lead partition `index` of `topic`, at the next leader epoch. */
  moveLeader(topic: string, index: number, node: number): void {
    const info = this.storage!.topic(topic);
    if (info === undefined || index < 0 || index >= info.partitions) throw new RangeError(`no partition ${topic}-${index}`);
    this.leadership.moveLeader(leadershipKey(info), index, node, this.logEnd(info.name, index));
    void this.keep();
  }

  /** Takes `node` down: what it leads moves to other live nodes. */
  stop(node: number): void {
    const names = new Map(this.storage!.topics().map((t) => [leadershipKey(t), t.name]));
    for (const [key] of this.leadership.placed()) {
      // A deleted topic's leaderships go with it.
      if (!names.has(key) && !isInternalTopic(key)) this.leadership.forget(key);
    }
    this.leadership.stop(node, (key, index) => {
      const name = names.get(key);
      return name === undefined ? 0 : this.logEnd(name, index);
    });
    void this.keep();
  }

  private logEnd(topic: string, index: number): number {
    return this.storage!.partition(topic, index)?.logEndOffset ?? 0;
  }
}

/**
 * Leaderships are kept by topic id, those of the internal topics by name: a coordinator, asked
 * for before its topic exists, is the leader of its key's partition once the topic does.
 */
function leadershipKey(topic: TopicInfo): string {
  return isInternalTopic(topic.name) ? topic.name : topic.topicId;
}
