/**
 * The committed offsets of an earlier brook's data directory, moved into `__consumer_offsets` once,
 * at the first start that finds them: its offset files (`group-offsets-<g>.snapshot` and
 * `.log`, offset-files.ts) or, older still, `group-offsets.json` (legacy-offsets.ts).
 *
 * A kill at any point leaves the old form or the new: the topic is emptied first (whatever a move
 * cut short wrote goes), every offset written and fsynced, and only then is the marker file
 * written, the commit point, after which the old files are removed and, last, the marker. A start
 * that finds the marker only finishes the removal.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileIfExists, syncDir, writeFileDurably } from '../files/durable-file.js';
import type { NewRecord } from '../protocol/stored-records.js';
import { commitRecord } from './offset-commit-records.js';
import { listOffsetFiles, loadOffsets, OFFSET_FILES } from './offset-files.js';
import { LEGACY_OFFSETS_FILE, parseLegacyOffsets } from './legacy-offsets.js';
import { OffsetState, commitOf } from './offset-state.js';
import type { MigrationLog, OffsetsLog, OffsetStoreLog } from './offsets-log.js';

/** Written once the offsets are in the topic: from then on the old files are only to be removed. */
export const MIGRATED_MARKER = 'group-offsets.migrated';
/** Records per batch: a large group's offsets go in several batches, each well within max.message.bytes. */
const RECORDS_PER_BATCH = 1000;

export async function migrateOffsetFiles(dir: string, log: OffsetsLog & MigrationLog, report: OffsetStoreLog): Promise<void> {
  const files = await listOffsetFiles(dir);
  const legacy = join(dir, LEGACY_OFFSETS_FILE);
  const legacyBytes = await readFileIfExists(legacy);
  const hasFiles = files.snapshots.length > 0 || files.logs.length > 0 || files.temporary.length > 0;
  const marked = (await readFileIfExists(join(dir, MIGRATED_MARKER))) !== undefined;
  if (!marked) {
    if (!hasFiles && legacyBytes === undefined) return;
    const state = new OffsetState();
    if (files.snapshots.length > 0 || files.logs.length > 0) await loadOffsets(dir, files, state);
    else if (legacyBytes !== undefined) {
      // The file kept no times: its offsets are taken as committed now.
      for (const [groupId, offsets] of parseLegacyOffsets(legacy, legacyBytes.toString('utf8'), Date.now())) state.apply({ kind: 'commit', groupId, offsets });
    }
    await log.reset();
    for (const [groupId, topics] of state.entries()) {
      const change = commitOf(groupId, topics);
      if (change.kind !== 'commit') continue;
      const records: NewRecord[] = change.offsets.map((o) => commitRecord(groupId, o));
      for (let i = 0; i < records.length; i += RECORDS_PER_BATCH) await log.append(log.partitionFor(groupId), records.slice(i, i + RECORDS_PER_BATCH));
    }
    await log.sync();
    await writeFileDurably(join(dir, MIGRATED_MARKER), '');
    report.info({ dir, groups: state.groupIds().length }, 'committed offsets moved into __consumer_offsets');
  }
  const old = await listOffsetFiles(dir);
  const names = [
    ...old.snapshots.map((g) => OFFSET_FILES.snapshotName(g)),
    ...old.logs.map((g) => OFFSET_FILES.logName(g)),
    ...old.temporary,
    LEGACY_OFFSETS_FILE,
    `${LEGACY_OFFSETS_FILE}.tmp`,
    `${MIGRATED_MARKER}.tmp`,
  ];
  for (const name of names) await rm(join(dir, name), { force: true });
  await syncDir(dir);
  await rm(join(dir, MIGRATED_MARKER));
  await syncDir(dir);
}
