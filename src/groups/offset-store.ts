/**
 * Committed offsets by group: held in memory, and kept in the data directory as Kafka's `GroupMetadataManager` keeps them
 * in its compacted __consumer_offsets topic, as a log of changes (offset-files.ts) compacted in
 * the background (files/compacted-log.ts). A change is encoded when it is asked for, and visible
 * once written: in the page cache, or under `--flush always` on disk. What a change costs does not
 * grow with the groups.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CompactedLog, type CompactedLogOptions, type StoreLog } from '../files/compacted-log.js';
import { readFileIfExists, syncDir } from '../files/durable-file.js';
import { LEGACY_OFFSETS_FILE, parseLegacyOffsets } from './legacy-offsets.js';
import { listOffsetFiles, loadOffsets, OFFSET_FILES, snapshotRecords, writeSnapshot, type OffsetFiles } from './offset-files.js';
import { encodeRecord } from './offset-records.js';
import { OffsetState, type GroupOffsets, type OffsetChange, type PartitionOffset, type TopicPartition } from './offset-state.js';

export type { CommittedOffset, GroupOffsets, PartitionOffset, TopicPartition } from './offset-state.js';
export type { StoreLog } from '../files/compacted-log.js';

export type OffsetStoreOptions = CompactedLogOptions;

export class OffsetStore {
  /** Changes naming each group that are queued or being written. */
  private readonly pending = new Map<string, number>();

  private constructor(
    private readonly state: OffsetState,
    private readonly log: CompactedLog<OffsetChange>,
  ) {}

  /**
   * The offsets kept in `dir`: a `group-offsets.json` of an older brook is moved over first. A
   * log's end that a crash cut off mid-record is cut from the file, and said so in the log.
   */
  static async open(dir: string, options: OffsetStoreOptions): Promise<OffsetStore> {
    await migrateLegacyFile(dir, await listOffsetFiles(dir), options.log);
    const state = new OffsetState();
    const loaded = await loadOffsets(dir, await listOffsetFiles(dir), state);
    const kept = {
      apply: (change: OffsetChange) => state.apply(change),
      get liveBytes() {
        return state.liveBytes;
      },
      snapshotRecords: () => snapshotRecords(state.entries()),
    };
    return new OffsetStore(state, await CompactedLog.open(dir, OFFSET_FILES, 'committed offsets', loaded, kept, options));
  }

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
    return this.enqueue({ kind: 'commit', groupId, offsets: offsets.map((o) => ({ ...o, commitTimestamp })) });
  }

  /** Removes the group's offsets of these partitions; a group left without offsets goes. */
  deleteOffsets(groupId: string, partitions: readonly TopicPartition[]): Promise<void> {
    return this.enqueue({ kind: 'deleteOffsets', groupId, partitions });
  }

  deleteGroup(groupId: string): Promise<void> {
    return this.enqueue({ kind: 'deleteGroup', groupId });
  }

  /** Removes the topic's offsets from every group; a group left without offsets goes. */
  deleteTopic(topic: string): Promise<void> {
    return this.enqueue({ kind: 'deleteTopic', topic });
  }

  /** Writes what was asked for, stops a compaction under way and syncs the log; later changes are refused. */
  close(): Promise<void> {
    return this.log.close();
  }

  private async enqueue(change: OffsetChange): Promise<void> {
    const record = encodeRecord(change);
    const groupId = change.kind === 'deleteTopic' ? undefined : change.groupId;
    if (groupId === undefined) return this.log.append(record, change);
    this.pending.set(groupId, (this.pending.get(groupId) ?? 0) + 1);
    try {
      await this.log.append(record, change);
    } finally {
      const left = this.pending.get(groupId)! - 1;
      if (left === 0) this.pending.delete(groupId);
      else this.pending.set(groupId, left);
    }
  }
}

/**
 * Moves the offsets of a `group-offsets.json` (brook before the log) into a first snapshot,
 * each taken as committed now, and removes the file. Offset files beside it mean a move a stop
 * cut short after its snapshot was in place: only the removal is left to do.
 */
async function migrateLegacyFile(dir: string, files: OffsetFiles, log: StoreLog): Promise<void> {
  const legacy = join(dir, LEGACY_OFFSETS_FILE);
  const bytes = await readFileIfExists(legacy);
  if (bytes === undefined) return;
  if (files.snapshots.length === 0 && files.logs.length === 0) {
    const state = new OffsetState();
    for (const [groupId, offsets] of parseLegacyOffsets(legacy, bytes.toString('utf8'), Date.now())) state.apply({ kind: 'commit', groupId, offsets });
    await writeSnapshot(dir, 0, state.entries());
    log.info({ file: legacy, groups: state.groupIds().length }, 'committed offsets moved to their log');
  }
  await rm(legacy);
  await rm(`${legacy}.tmp`, { force: true });
  await syncDir(dir);
}
