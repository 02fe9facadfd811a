/**
 * What `__consumer_offsets` holds, read at the start in one pass over each partition: the
 * committed offsets, the last record of each key winning, and the groups' membership, once an
 * earlier brook's offset files (offset-migration.ts) and `groups.json` (groups-migration.ts)
 * are moved in. A record that does not decode is passed over, and said so.
 */
import { readDecoded, type CoordinatorLog } from '../protocol/coordinator-log.js';
import { GroupRecords, type GroupStore } from './group-store.js';
import { migrateGroupsFile } from './groups-migration.js';
import { readOffsetRecord } from './offset-commit-records.js';
import { migrateOffsetFiles } from './offset-migration.js';
import { OffsetState, type StoredOffset } from './offset-state.js';
import type { OffsetStoreLog } from './offset-store-log.js';
import { OffsetStore } from './offset-store.js';

export interface OffsetsTopicOptions {
  readonly report: OffsetStoreLog;
  /** The time, ms since the epoch, for the classic groups read. */
  readonly now: () => number;
  /** Hears of a deleted group's tombstones not written. */
  readonly onGroupError: (groupId: string, err: Error) => void;
}

export async function openOffsetsTopic(dir: string, log: CoordinatorLog, options: OffsetsTopicOptions): Promise<{ offsets: OffsetStore; groups: GroupStore }> {
  await migrateOffsetFiles(dir, log, options.report);
  await migrateGroupsFile(dir, log, options.report);
  const groups = new GroupRecords(options.now);
  // group → "topic\0partition" → the last record's offset, undefined for a tombstone.
  const latest = new Map<string, Map<string, StoredOffset | undefined>>();
  const undecodable = await readDecoded(
    log,
    (key, value) => (groups.take(key, value) ? undefined : readOffsetRecord(key, value)),
    (record) => {
      if (record === undefined) return;
      let group = latest.get(record.groupId);
      if (group === undefined) latest.set(record.groupId, (group = new Map()));
      group.set(`${record.topic}\0${record.partition}`, record.committed);
    },
  );
  if (undecodable > 0) options.report.warn({ records: undecodable }, 'records of the offsets topic brook does not read passed over');
  const state = new OffsetState();
  for (const [groupId, offsets] of latest) {
    state.apply({ kind: 'commit', groupId, offsets: [...offsets.values()].filter((o) => o !== undefined) });
  }
  return { offsets: new OffsetStore(state, log), groups: groups.store(log, options.onGroupError) };
}
