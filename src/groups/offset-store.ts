/**
 * Committed offsets by group: held in memory, and kept as Kafka's group coordinator keeps them,
 * as records of the compacted topic `__consumer_offsets` (offset-commit-records.ts), each group's
 * in its partition, appended through the `CoordinatorLog` the broker gives. A change is visible once
 * its records are written: in the page cache, or under `--flush always` on disk. At the start the
 * offsets are read back from the topic with the groups (offsets-topic.ts).
 */
import { ErrorCode } from '../protocol/error-codes.js';
import type { NewRecord } from '../protocol/stored-records.js';
import { commitRecord, tombstoneRecord } from './offset-commit-records.js';
import { CoordinatorLogNotWritten, type CoordinatorLog } from '../protocol/coordinator-log.js';
import type { OffsetState, GroupOffsets, OffsetChange, PartitionOffset, TopicPartition } from './offset-state.js';

export type { CommittedOffset, GroupOffsets, PartitionOffset, TopicPartition } from './offset-state.js';

export class OffsetStore {
  /** The changes naming each group that are being written. */
  private readonly pending = new Map<string, Set<OffsetChange>>();
  private readonly writing = new Set<Promise<unknown>>();
  private closed = false;

  /** The offsets `state` holds, as read from `log` (offsets-topic.ts), kept there from now on. */
  constructor(
    private readonly state: OffsetState,
    private readonly log: CoordinatorLog,
  ) {}

  has(groupId: string): boolean {
    return this.state.has(groupId);
  }

  groupIds(): string[] {
    return this.state.groupIds();
  }

  offsets(groupId: string): GroupOffsets | undefined {
    return this.state.offsets(groupId);
  }

  /** Whether a change naming the group is on its way: what it will hold is not known yet. */
  hasPending(groupId: string): boolean {
    return this.pending.has(groupId);
  }

  commit(groupId: string, offsets: readonly PartitionOffset[], commitTimestamp = Date.now()): Promise<void> {
    const stored = offsets.map((o) => ({ ...o, commitTimestamp }));
    const records = stored.map((o) => commitRecord(groupId, o));
    return this.change({ kind: 'commit', groupId, offsets: stored }, [groupId], this.byPartition([[groupId, records]]));
  }

  /** Removes the group's offsets of these partitions; a group left without offsets goes. */
  deleteOffsets(groupId: string, partitions: readonly TopicPartition[]): Promise<void> {
    const records = partitions.map((p) => tombstoneRecord(groupId, p.topic, p.partition));
    return this.change({ kind: 'deleteOffsets', groupId, partitions }, [groupId], this.byPartition([[groupId, records]]));
  }

  deleteGroup(groupId: string): Promise<void> {
    const records = this.partitionsOf(groupId, () => true).map((p) => tombstoneRecord(groupId, p.topic, p.partition));
    return this.change({ kind: 'deleteGroup', groupId }, [groupId], this.byPartition([[groupId, records]]));
  }

  /** Removes the topic's offsets from every group; a group left without offsets goes. */
  deleteTopic(topic: string): Promise<void> {
    const groups = new Set([...this.state.groupIds(), ...this.pending.keys()]);
    const tombstones: [string, NewRecord[]][] = [];
    for (const groupId of groups) {
      const records = this.partitionsOf(groupId, (t) => t === topic).map((p) => tombstoneRecord(groupId, p.topic, p.partition));
      if (records.length > 0) tombstones.push([groupId, records]);
    }
    return this.change(
      { kind: 'deleteTopic', topic },
      tombstones.map(([groupId]) => groupId),
      this.byPartition(tombstones),
    );
  }

  /** Waits for the changes under way; later changes are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.writing]);
  }

  /** The group's partitions of the topics `topic` takes, with offsets held or on their way (a tombstone for each). */
  private partitionsOf(groupId: string, topic: (name: string) => boolean): TopicPartition[] {
    const seen = new Set<string>();
    const found: TopicPartition[] = [];
    const add = (p: TopicPartition): void => {
      const key = `${p.topic}\0${p.partition}`;
      if (!topic(p.topic) || seen.has(key)) return;
      seen.add(key);
      found.push({ topic: p.topic, partition: p.partition });
    };
    for (const [name, partitions] of this.state.offsets(groupId) ?? []) for (const partition of partitions.keys()) add({ topic: name, partition });
    for (const change of this.pending.get(groupId) ?? []) if (change.kind === 'commit') change.offsets.forEach(add);
    return found;
  }

  /** The records of each group, gathered by the partition of the offsets topic that holds the group. */
  private byPartition(groups: readonly [string, NewRecord[]][]): Map<number, NewRecord[]> {
    const appends = new Map<number, NewRecord[]>();
    for (const [groupId, records] of groups) {
      if (records.length === 0) continue;
      const partition = this.log.partitionFor(groupId);
      const listed = appends.get(partition);
      if (listed === undefined) appends.set(partition, [...records]);
      else listed.push(...records);
    }
    return appends;
  }

  /** Appends the records, then applies the change: what is read never runs ahead of what is written. */
  private change(change: OffsetChange, groups: readonly string[], appends: ReadonlyMap<number, readonly NewRecord[]>): Promise<void> {
    if (this.closed) return Promise.reject(new CoordinatorLogNotWritten(ErrorCode.NOT_COORDINATOR, 'the offset store is closed'));
    for (const groupId of groups) {
      const pending = this.pending.get(groupId);
      if (pending === undefined) this.pending.set(groupId, new Set([change]));
      else pending.add(change);
    }
    const written = Promise.all([...appends].map(([partition, records]) => this.log.append(partition, records))).then(() => this.state.apply(change));
    const done = written.finally(() => {
      this.writing.delete(done);
      for (const groupId of groups) {
        const pending = this.pending.get(groupId)!;
        pending.delete(change);
        if (pending.size === 0) this.pending.delete(groupId);
      }
    });
    this.writing.add(done);
    return done;
  }
}
