/**
 * Committed offsets by group in memory, and the changes that move them: the one place where a
 * change takes effect, whether it was just written, read back from `__consumer_offsets`, or
 * replayed from an earlier brook's offset files.
 *
 * A group's offsets are never changed in place: a change puts a new map in the group's place
 * (copying what it touches: the group's topics, and the partitions of the topics it changes), so
 * that a reader may go on reading the maps it took while later changes are made.
 */

export interface OffsetAndMetadata {
  readonly offset: bigint;
  readonly leaderEpoch: number;
  readonly metadata: string;
}

export interface CommittedOffset extends OffsetAndMetadata {
  /** When the broker took the commit (ms since the epoch): offsets.retention.minutes counts from it. */
  readonly commitTimestamp: number;
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface PartitionOffset extends OffsetAndMetadata, TopicPartition {}

export interface StoredOffset extends CommittedOffset, TopicPartition {}

/** topic → partition → committed offset */
export type GroupOffsets = ReadonlyMap<string, ReadonlyMap<number, CommittedOffset>>;

export type OffsetChange =
  | { readonly kind: 'commit'; readonly groupId: string; readonly offsets: readonly StoredOffset[] }
  | { readonly kind: 'deleteOffsets'; readonly groupId: string; readonly partitions: readonly TopicPartition[] }
  | { readonly kind: 'deleteGroup'; readonly groupId: string }
  | { readonly kind: 'deleteTopic'; readonly topic: string };

export class OffsetState {
  private readonly groups = new Map<string, GroupOffsets>();

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  offsets(groupId: string): GroupOffsets | undefined {
    return this.groups.get(groupId);
  }

  /** Every group and its offsets as they are now; the maps stay as they are whatever happens later. */
  entries(): [string, GroupOffsets][] {
    return [...this.groups];
  }

  apply(change: OffsetChange): void {
    switch (change.kind) {
      case 'commit':
        return this.commit(change.groupId, change.offsets);
      case 'deleteOffsets': {
        const byTopic = new Map<string, number[]>();
        for (const { topic, partition } of change.partitions) {
          const listed = byTopic.get(topic);
          if (listed === undefined) byTopic.set(topic, [partition]);
          else listed.push(partition);
        }
        return this.remove(change.groupId, byTopic);
      }
      case 'deleteGroup':
        return this.remove(change.groupId, undefined);
      case 'deleteTopic':
        // A Map may lose and replace entries while it is iterated.
        for (const [groupId, topics] of this.groups) if (topics.has(change.topic)) this.remove(groupId, new Map([[change.topic, undefined]]));
    }
  }

  private commit(groupId: string, offsets: readonly StoredOffset[]): void {
    if (offsets.length === 0) return; // a group is known by its offsets: no offsets, no group
    const before = this.groups.get(groupId);
    const topics = new Map(before);
    const copied = new Set<string>();
    for (const { topic, partition, offset, leaderEpoch, metadata, commitTimestamp } of offsets) {
      let partitions = topics.get(topic) as Map<number, CommittedOffset> | undefined;
      if (!copied.has(topic)) {
        partitions = new Map(partitions);
        topics.set(topic, partitions);
        copied.add(topic);
      }
      partitions!.set(partition, { offset, leaderEpoch, metadata, commitTimestamp });
    }
    this.groups.set(groupId, topics);
  }

  /**
   * Removes offsets of the group: of each topic in `which`, the partitions listed (all for
   * undefined); everything when `which` is undefined. A group left without offsets goes.
   */
  private remove(groupId: string, which: ReadonlyMap<string, readonly number[] | undefined> | undefined): void {
    const before = this.groups.get(groupId);
    if (before === undefined) return;
    const topics = new Map(before);
    for (const [topic, partitions] of which ?? [...before].map(([topic]) => [topic, undefined] as const)) {
      const held = topics.get(topic);
      if (held === undefined) continue;
      const kept = new Map(held);
      for (const partition of partitions ?? [...held.keys()]) {
        kept.delete(partition);
      }
      if (kept.size > 0) {
        topics.set(topic, kept);
      } else {
        topics.delete(topic);
      }
    }
    if (topics.size > 0) {
      this.groups.set(groupId, topics);
    } else {
      this.groups.delete(groupId);
    }
  }
}

/** A group's offsets as one commit: how a snapshot holds them. */
export function commitOf(groupId: string, topics: GroupOffsets): OffsetChange {
  const offsets: StoredOffset[] = [];
  for (const [topic, partitions] of topics) for (const [partition, committed] of partitions) offsets.push({ topic, partition, ...committed });
  return { kind: 'commit', groupId, offsets };
}
