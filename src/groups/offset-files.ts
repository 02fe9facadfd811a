/**
 * The files committed offsets are kept in, in the data directory, numbered by generation
 * (files/generation-files.ts): `group-offsets-<g>.snapshot`, every group's offsets as they were
 * when log g was started, and `group-offsets-<g>.log`, the changes since.
 */
import { GenerationFiles, type GenerationList, type Loaded } from '../files/generation-files.js';
import { encodeRecord, scanRecords } from './offset-records.js';
import { commitOf, type GroupOffsets, type OffsetState } from './offset-state.js';

export type OffsetFiles = GenerationList;

export const OFFSET_FILES = new GenerationFiles('group-offsets');

export function listOffsetFiles(dir: string): Promise<OffsetFiles> {
  return OFFSET_FILES.list(dir);
}

/** Replays the newest snapshot and the logs from its generation into `state`, cutting a log's damaged end. */
export function loadOffsets(dir: string, files: OffsetFiles, state: OffsetState): Promise<Loaded> {
  return OFFSET_FILES.load(dir, files, (bytes) => scanRecords(bytes, (change) => state.apply(change)));
}

/** Writes `groups` as snapshot `generation`. */
export function writeSnapshot(dir: string, generation: number, groups: Iterable<[string, GroupOffsets]>): Promise<void> {
  return OFFSET_FILES.writeSnapshot(dir, generation, snapshotRecords(groups), () => false);
}

/** The records of a snapshot holding `groups`: one commit of all its offsets per group. */
export function* snapshotRecords(groups: Iterable<[string, GroupOffsets]>): Iterable<Buffer> {
  for (const [groupId, topics] of groups) yield encodeRecord(commitOf(groupId, topics));
}
