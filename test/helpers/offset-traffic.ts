/**
 * Changes to committed offsets for the offset store's tests: a numbered, deterministic sequence,
 * a model that applies them in the plainest way, and the stores' contents in one comparable form.
 */
import type { OffsetChange, StoredOffset } from '../../src/groups/offset-state.js';
import type { OffsetStore } from '../../src/groups/offset-store.js';
import type { OffsetStoreLog } from '../../src/groups/offset-store-log.js';
import { seeded } from './seeded.js';

const GROUPS = 12;
const TOPICS = 4;
const PARTITIONS = 4;

/** Change number `i` of the sequence `seed` names; commits carry offset i and time i seconds. */
export function offsetChange(seed: number, i: number): OffsetChange {
  const random = seeded(seed * 1_000_003 + i);
  const pick = (n: number): number => Math.floor(random() * n);
  const groupId = `group-${pick(GROUPS)}`;
  const roll = random();
  if (roll < 0.75) {
    const offsets: StoredOffset[] = Array.from({ length: 1 + pick(6) }, () => ({
      topic: `topic-${pick(TOPICS)}`,
      partition: pick(PARTITIONS),
      offset: BigInt(i),
      leaderEpoch: pick(3) - 1,
      metadata: pick(4) === 0 ? `meta ${i} `.repeat(pick(30)) : '',
      commitTimestamp: i * 1000,
    }));
    return { kind: 'commit', groupId, offsets };
  }
  if (roll < 0.88)
    return {
      kind: 'deleteOffsets',
      groupId,
      partitions: Array.from({ length: 1 + pick(4) }, () => ({ topic: `topic-${pick(TOPICS)}`, partition: pick(PARTITIONS) })),
    };
  if (roll < 0.96) return { kind: 'deleteGroup', groupId };
  return { kind: 'deleteTopic', topic: `topic-${pick(TOPICS)}` };
}

/** Asks the store for the change. */
export function applyToStore(store: OffsetStore, change: OffsetChange): Promise<void> {
  switch (change.kind) {
    case 'commit':
      return store.commit(change.groupId, change.offsets, change.offsets[0]?.commitTimestamp);
    case 'deleteOffsets':
      return store.deleteOffsets(change.groupId, change.partitions);
    case 'deleteGroup':
      return store.deleteGroup(change.groupId);
    case 'deleteTopic':
      return store.deleteTopic(change.topic);
  }
}

/** One committed offset, as the contents list it. */
export type Row = readonly [group: string, topic: string, partition: number, offset: bigint, leaderEpoch: number, metadata: string, commitTimestamp: number];

/** group → "topic/partition" → row: the plainest bookkeeping of the changes. */
export class OffsetModel {
  private readonly groups = new Map<string, Map<string, Row>>();

  apply(change: OffsetChange): void {
    const forget = (groupId: string, matches: (row: Row) => boolean): void => {
      const rows = this.groups.get(groupId);
      if (rows === undefined) return;
      for (const [key, row] of rows) if (matches(row)) rows.delete(key);
      if (rows.size === 0) this.groups.delete(groupId);
    };
    switch (change.kind) {
      case 'commit':
        for (const o of change.offsets) {
          const rows = this.groups.get(change.groupId) ?? new Map<string, Row>();
          this.groups.set(change.groupId, rows);
          rows.set(`${o.topic}/${o.partition}`, [change.groupId, o.topic, o.partition, o.offset, o.leaderEpoch, o.metadata, o.commitTimestamp]);
        }
        break;
      case 'deleteOffsets':
        forget(change.groupId, (row) => change.partitions.some((p) => p.topic === row[1] && p.partition === row[2]));
        break;
      case 'deleteGroup':
        forget(change.groupId, () => true);
        break;
      case 'deleteTopic':
        for (const groupId of [...this.groups.keys()]) forget(groupId, (row) => row[1] === change.topic);
    }
  }

  rows(): Row[] {
    return sorted([...this.groups.values()].flatMap((rows) => [...rows.values()]));
  }
}

/** Everything the store holds, sorted. */
export function storeRows(store: OffsetStore): Row[] {
  const rows: Row[] = [];
  for (const groupId of store.groupIds()) {
    for (const [topic, partitions] of store.offsets(groupId)!) {
      for (const [partition, o] of partitions) rows.push([groupId, topic, partition, o.offset, o.leaderEpoch, o.metadata, o.commitTimestamp]);
    }
  }
  return sorted(rows);
}

function sorted(rows: Row[]): Row[] {
  return rows.sort((a, b) => (a[0] + '\0' + a[1]).localeCompare(b[0] + '\0' + b[1]) || a[2] - b[2]);
}

/** A store log that keeps what it is told. */
export function recordingLog(): OffsetStoreLog & { readonly lines: { level: string; message: string; fields: object }[] } {
  const lines: { level: string; message: string; fields: object }[] = [];
  const at = (level: string) => (fields: object, message: string) => void lines.push({ level, message, fields });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}
