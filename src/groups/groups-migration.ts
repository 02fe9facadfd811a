/**
 * The groups of an earlier brook's data directory, moved from `groups.json` (legacy-groups.ts)
 * into `__consumer_offsets` once, at the first start that finds the file. A kill at any point
 * leaves the old form or the new (files/move-once.ts): a move cut short is made again from the
 * start, writing the same records again, whose last copy is what a read finds; every record is
 * fsynced before the marker. It runs after the offsets' move, which empties the topic first.
 */
import { join } from 'node:path';
import { readFileIfExists } from '../files/durable-file.js';
import { moveOnce } from '../files/move-once.js';
import type { CoordinatorLog } from '../protocol/coordinator-log.js';
import type { NewRecord } from '../protocol/stored-records.js';
import { consumerGroupRecords } from './consumer-group-records.js';
import { groupMetadataRecord } from './group-metadata-records.js';
import { LEGACY_GROUPS_FILE, readLegacyGroups } from './legacy-groups.js';
import type { OffsetStoreLog } from './offset-store-log.js';

/** Written once the groups are in the topic: from then on the old file is only to be removed. */
const MIGRATED_MARKER = 'groups.migrated';
/** Records per batch: a large group's records go in several batches, each well within max.message.bytes. */
const RECORDS_PER_BATCH = 500;

export async function migrateGroupsFile(dir: string, log: CoordinatorLog, report: OffsetStoreLog): Promise<void> {
  const path = join(dir, LEGACY_GROUPS_FILE);
  await moveOnce(dir, {
    marker: MIGRATED_MARKER,
    async oldFiles() {
      const names: string[] = [];
      for (const name of [LEGACY_GROUPS_FILE, `${LEGACY_GROUPS_FILE}.tmp`]) if ((await readFileIfExists(join(dir, name))) !== undefined) names.push(name);
      return names;
    },
    async move() {
      const groups = await readLegacyGroups(path, Date.now);
      const byGroup: [string, NewRecord[]][] = [
        ...(groups?.classic ?? []).map((g): [string, NewRecord[]] => [g.groupId, [groupMetadataRecord(g)]]),
        ...(groups?.consumer ?? []).map((g): [string, NewRecord[]] => [g.groupId, consumerGroupRecords(g)]),
      ];
      for (const [groupId, records] of byGroup) {
        for (let i = 0; i < records.length; i += RECORDS_PER_BATCH) await log.append(log.partitionFor(groupId), records.slice(i, i + RECORDS_PER_BATCH));
      }
      await log.sync();
      report.info({ dir, groups: byGroup.length }, 'group membership moved into __consumer_offsets');
    },
  });
}
