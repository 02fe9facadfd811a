/**
 * Each group's membership kept as Kafka's group coordinator keeps it, as records of
 * `__consumer_offsets` in the group's partition: a classic group's GroupMetadata record
 * (group-metadata-records.ts), written when its rebalance completes or it becomes Empty, and a
 * consumer group's records (consumer-group-records.ts), written as its epochs, subscriptions and
 * assignments change. After a restart the groups come back as last written, so members that
 * heartbeat go on without a rebalance, and an Empty group's offsets expire counting from when it
 * became Empty.
 *
 * The store remembers the last record written under each of a group's keys: a consumer group's
 * change writes only the records that differ, and the keys it no longer has as tombstones, as
 * Kafka writes a member's tombstones when it leaves; a deleted group's keys all get tombstones,
 * in the order of Kafka's `ConsumerGroup.createGroupTombstoneRecords`. A group's writes go one
 * after the other, so its records land in the order of its changes. A write that fails is
 * written again with the group's next change.
 */
import type { CoordinatorLog } from '../protocol/coordinator-log.js';
import { coordinatorRecordType } from '../protocol/coordinator-record.js';
import { Reader } from '../protocol/primitives/reader.js';
import type { NewRecord } from '../protocol/stored-records.js';
import type { ClassicGroup } from './classic-group.js';
import type { ConsumerGroup } from './consumer-group.js';
import { CONSUMER_GROUP_RECORD_TYPES, ConsumerGroupRecords, consumerGroupRecords } from './consumer-group-records.js';
import { groupMetadataRecord, readGroupMetadataRecord } from './group-metadata-records.js';
import {
  ConsumerGroupCurrentMemberAssignmentKey,
  ConsumerGroupMemberMetadataKey,
  ConsumerGroupMetadataKey,
  ConsumerGroupTargetAssignmentMemberKey,
  ConsumerGroupTargetAssignmentMetadataKey,
  GroupMetadataKey,
} from '../protocol/messages/coordinator-records.js';

/** A record whose write failed: whatever the group holds next is written again. */
const UNKNOWN = Symbol('unknown');

/** Record key (as latin1) → the value last written under it. */
type Written = Map<string, { readonly key: Buffer; value: Buffer | typeof UNKNOWN }>;

/** Tombstones go members' assignments first, the group's epoch last, as Kafka orders them: record type → rank. */
const TOMBSTONE_ORDER = new Map(
  [
    ConsumerGroupCurrentMemberAssignmentKey,
    ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMetadataKey,
    ConsumerGroupMemberMetadataKey,
    ConsumerGroupMetadataKey,
    GroupMetadataKey,
  ].map((codec, rank) => [codec.apiKey, rank]),
);

/** The groups the records of `__consumer_offsets` hold, gathered in the read that gathers the offsets. */
export class GroupRecords {
  private readonly classic = new Map<string, ClassicGroup>();
  private readonly consumer = new ConsumerGroupRecords();
  /** groupId → what is written under its keys. */
  private readonly written = new Map<string, Written>();

  /** `clock` gives the classic groups read their time. */
  constructor(private readonly clock: () => number) {}

  /** Whether the record is a group's: taken if so. Throws ProtocolError for a group record that does not decode. */
  take(key: Buffer, value: Buffer | null): boolean {
    const type = coordinatorRecordType(key);
    if (type === GroupMetadataKey.apiKey) {
      const { groupId, group } = readGroupMetadataRecord(key, value, this.clock);
      if (group === undefined) this.classic.delete(groupId);
      else this.classic.set(groupId, group);
    } else if (CONSUMER_GROUP_RECORD_TYPES.has(type)) {
      this.consumer.take(key, value);
    } else {
      return false;
    }
    // Every group record's key starts with the group id.
    const groupId = new Reader(key, 2).readString();
    let written = this.written.get(groupId);
    if (written === undefined) this.written.set(groupId, (written = new Map()));
    if (value === null) written.delete(key.toString('latin1'));
    else written.set(key.toString('latin1'), { key, value });
    if (written.size === 0) this.written.delete(groupId);
    return true;
  }

  /** The store over `log` that goes on from these records; `onError` hears of a deleted group's tombstones not written. */
  store(log: CoordinatorLog, onError: (groupId: string, err: Error) => void): GroupStore {
    return new GroupStore(log, [...this.classic.values()], this.consumer.groupsRead(), this.written, onError);
  }
}

export class GroupStore {
  /** Each group's last write, which its next one waits for. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly log: CoordinatorLog,
    private loaded: ClassicGroup[],
    private loadedConsumer: ConsumerGroup[],
    private readonly written: Map<string, Written>,
    private readonly onError: (groupId: string, err: Error) => void,
  ) {}

  /** The classic groups read at the start: Stable with their members, or Empty; no timers run yet. Once only. */
  takeGroups(): ClassicGroup[] {
    const groups = this.loaded;
    this.loaded = [];
    return groups;
  }

  /** The consumer groups read at the start, their members owning what they owned; no timers run yet. Once only. */
  takeConsumerGroups(): ConsumerGroup[] {
    const groups = this.loadedConsumer;
    this.loadedConsumer = [];
    return groups;
  }

  /** Stores what the classic group is now, with tombstones for the consumer group it was (a downgrade); resolves once written. */
  put(group: ClassicGroup): Promise<void> {
    const record = groupMetadataRecord(group);
    return this.write(group.groupId, [...this.tombstonesBesides(group.groupId, [record]), record]);
  }

  /** Stores what the consumer group is now: the records that changed, tombstones for what it no longer has; resolves once written. */
  putConsumer(group: ConsumerGroup): Promise<void> {
    const now = consumerGroupRecords(group);
    const written = this.written.get(group.groupId);
    const changed = now.filter((r) => {
      const before = written?.get(idOf(r))?.value;
      return before === undefined || before === UNKNOWN || !before.equals(r.value!);
    });
    return this.write(group.groupId, [...this.tombstonesBesides(group.groupId, now), ...changed]);
  }

  /**
   * Tombstones, in Kafka's order, for the group's keys written before that `now` does not hold:
   * a consumer group's members gone, or the records of the kind of group it was before a change of
   * protocol, which Kafka's conversions delete before writing the new kind's.
   */
  private tombstonesBesides(groupId: string, now: readonly NewRecord[]): NewRecord[] {
    const current = new Set(now.map((r) => idOf(r)));
    const written = this.written.get(groupId);
    return ordered([...(written?.values() ?? [])].filter((w) => !current.has(w.key.toString('latin1'))).map((w) => tombstone(w.key)));
  }

  /** Tombstones for every record the group has; a failed write is reported. */
  remove(groupId: string): void {
    const written = this.written.get(groupId);
    if (written === undefined) return;
    this.write(groupId, ordered([...written.values()].map((w) => tombstone(w.key)))).catch((err: Error) => this.onError(groupId, err));
  }

  /** Waits for the writes under way. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.writing.values()]);
  }

  /** Appends the records after the group's writes before, remembering them as written; a failed write leaves them to be written again. */
  private write(groupId: string, records: readonly NewRecord[]): Promise<void> {
    if (records.length === 0) return this.writing.get(groupId) ?? Promise.resolve();
    let written = this.written.get(groupId);
    if (written === undefined) this.written.set(groupId, (written = new Map()));
    for (const r of records) {
      const id = idOf(r);
      if (r.value === null) written.delete(id);
      else written.set(id, { key: r.key!, value: r.value });
    }
    if (written.size === 0) this.written.delete(groupId);
    const before = this.writing.get(groupId) ?? Promise.resolve();
    const partition = this.log.partitionFor(groupId);
    const done = before
      .catch(() => {})
      .then(() => this.log.append(partition, records))
      .catch((err: Error) => {
        // What was not written is not known to be there: each of its keys is written again next time, or given a tombstone.
        let keys = this.written.get(groupId);
        if (keys === undefined) this.written.set(groupId, (keys = new Map()));
        for (const r of records) keys.set(idOf(r), { key: r.key!, value: UNKNOWN });
        throw err;
      })
      .finally(() => {
        if (this.writing.get(groupId) === done) this.writing.delete(groupId);
      });
    this.writing.set(groupId, done);
    return done;
  }
}

const tombstone = (key: Buffer): NewRecord => ({ key, value: null, headers: [] });
/** A group record's key, as the map of what is written holds it (every group record has a key). */
const idOf = (r: NewRecord): string => r.key!.toString('latin1');

function ordered(tombstones: NewRecord[]): NewRecord[] {
  const rank = (r: NewRecord) => TOMBSTONE_ORDER.get(coordinatorRecordType(r.key!)) ?? TOMBSTONE_ORDER.size;
  return tombstones.sort((a, b) => rank(a) - rank(b));
}
