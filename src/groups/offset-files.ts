/**
 * The files committed offsets are kept in, in the data directory, numbered by generation
 * (files/generation-files.ts): `group-offsets-<g>.snapshot`, every group's offsets as they were
 * when log g was started, and `group-offsets-<g>.log`, the changes since.
 */
import { GenerationFiles, type GenerationList, type Loaded } from '../files/generation-files.js';
import { encodeRecord, scanRecords } from './offset-records.js';
import { commitOf, type GroupOffsets, type OffsetState } from './offset-state.js';

export { SnapshotStopped } from '../files/generation-files.js';
export type OffsetFiles = GenerationList;

const FILES = new GenerationFiles('group-offsets');

export const logName = (generation: number): string => FILES.logName(generation);

export function listOffsetFiles(dir: string): Promise<OffsetFiles> {
  return FILES.list(dir);
}

/** Replays the newest snapshot and the logs from its generation into `state`, cutting a log's damaged end. */
export function loadOffsets(dir: string, files: OffsetFiles, state: OffsetState): Promise<Loaded> {
  return FILES.load(dir, files, (bytes) => scanRecords(bytes, (change) => state.apply(change)));
}

export function removeOlderFiles(dir: string, generation: number): Promise<void> {
  return FILES.removeOlder(dir, generation);
}

/** Writes `groups` as snapshot `generation`; `stopped` is asked between chunks. */
export function writeSnapshot(dir: string, generation: number, groups: Iterable<[string, GroupOffsets]>, stopped: () => boolean): Promise<void> {
  return FILES.writeSnapshot(dir, generation, recordsOf(groups), stopped);
}

function* recordsOf(groups: Iterable<[string, GroupOffsets]>): Iterable<Buffer> {
  for (const [groupId, topics] of groups) yield encodeRecord(commitOf(groupId, topics));
}
