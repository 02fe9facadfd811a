/**
 * The committed offsets of an earlier brook's data directory, moved into `__consumer_offsets` once,
 * at the first start that finds them: its offset files (`group-offsets-<g>.snapshot` and
 * `.log`, offset-files.ts) or, older still, `group-offsets.json` (legacy-offsets.ts). A kill at
 * any point leaves the old form or the new (files/move-once.ts): the topic is emptied first, so
 * whatever a move cut short wrote goes, and every offset is written and fsynced before the marker.
 */
import { join } from 'node:path';
import { readFileIfExists } from '../files/durable-file.js';
import { moveOnce } from '../files/move-once.js';
import type { CoordinatorLog } from '../protocol/coordinator-log.js';
import type { NewRecord } from '../protocol/stored-records.js';
import { commitRecord } from './offset-commit-records.js';
import { listOffsetFiles, loadOffsets, OFFSET_FILES } from './offset-files.js';
import { LEGACY_OFFSETS_FILE, parseLegacyOffsets } from './legacy-offsets.js';
import { OffsetState, commitOf } from './offset-state.js';
import type { OffsetStoreLog } from './offset-store-log.js';

/** Written once the offsets are in the topic: from then on the old files are only to be removed. */
const MIGRATED_MARKER = 'group-offsets.migrated';
/** Records per batch: a large group's offsets go in several batches, each well within max.message.bytes. */
const RECORDS_PER_BATCH = 1000;

export async function migrateOffsetFiles(dir: string, log: CoordinatorLog, report: OffsetStoreLog): Promise<void> {
  const legacy = join(dir, LEGACY_OFFSETS_FILE);
  await moveOnce(dir, {
    marker: MIGRATED_MARKER,
    async oldFiles() {
      const files = await listOffsetFiles(dir);
      const names = [...files.snapshots.map((g) => OFFSET_FILES.snapshotName(g)), ...files.logs.map((g) => OFFSET_FILES.logName(g)), ...files.temporary];
      for (const name of [LEGACY_OFFSETS_FILE, `${LEGACY_OFFSETS_FILE}.tmp`]) if ((await readFileIfExists(join(dir, name))) !== undefined) names.push(name);
      return names;
    },
    async move() {
      const files = await listOffsetFiles(dir);
      const state = new OffsetState();
      const legacyBytes = await readFileIfExists(legacy);
      if (files.snapshots.length > 0 || files.logs.length > 0) await loadOffsets(dir, files, state);
      else if (legacyBytes !== undefined) {
        // The file kept no times: its offsets are taken as committed now.
        for (const [groupId, offsets] of parseLegacyOffsets(legacy, legacyBytes.toString('utf8'), Date.now()))
          state.apply({ kind: 'commit', groupId, offsets });
      }
      await log.reset();
      for (const [groupId, topics] of state.entries()) {
        const change = commitOf(groupId, topics);
        if (change.kind !== 'commit') continue;
        const records: NewRecord[] = change.offsets.map((o) => commitRecord(groupId, o));
        for (let i = 0; i < records.length; i += RECORDS_PER_BATCH) await log.append(log.partitionFor(groupId), records.slice(i, i + RECORDS_PER_BATCH));
      }
      await log.sync();
      report.info({ dir, groups: state.groupIds().length }, 'committed offsets moved into __consumer_offsets');
    },
  });
}
