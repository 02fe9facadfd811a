/**
 * The files an earlier brook kept committed offsets in, in the data directory, numbered by
 * generation (files/generation-files.ts): `group-offsets-<g>.snapshot`, every group's offsets as
 * they were when log g was started, and `group-offsets-<g>.log`, the changes since. Read once, to
 * move them into `__consumer_offsets` (offset-migration.ts).
 */
import { GenerationFiles, type GenerationList, type Loaded } from '../files/generation-files.js';
import { scanRecords } from './offset-records.js';
import type { OffsetState } from './offset-state.js';

export type OffsetFiles = GenerationList;

export const OFFSET_FILES = new GenerationFiles('group-offsets');

export function listOffsetFiles(dir: string): Promise<OffsetFiles> {
  return OFFSET_FILES.list(dir);
}

/** Replays the newest snapshot and the logs from its generation into `state`, cutting a log's damaged end. */
export function loadOffsets(dir: string, files: OffsetFiles, state: OffsetState): Promise<Loaded> {
  return OFFSET_FILES.load(dir, files, (bytes) => scanRecords(bytes, (change) => state.apply(change)));
}
