/**
 * The small files of a partition directory beside its segments.
 *
 * `recovery-point`: the position up to which the log (and index) was fsynced, so recovery
 * trusts what lies before it and scans only what follows. close() leaves it at the very end of
 * the active segment: that is the clean-shutdown marker, and the next start scans nothing.
 *   crc32c of the rest (u32) | version (u16) | segment base offset (i64) | position (i64) | offset there (i64)
 *
 * `log-start-offset`: the log start DeleteRecords moved it to, which may lie inside a segment;
 * absent, the first segment's base offset. Retention moves the start only by deleting segments.
 *   crc32c of the rest (u32) | version (u16) | log start offset (i64)
 *
 * `<offset>.snapshot`: producer state (see producer-states.ts), the newest few kept.
 *
 * `cleaner-offset`: of a compacted partition, where its last cleaning's offset map ended: the
 * log before it is clean (Kafka's cleaner-offset-checkpoint).
 *   crc32c of the rest (u32) | version (u16) | offset (i64)
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32c } from '../protocol/crc32c.js';
import { readFileIfExists, writeFileDurably } from '../files/durable-file.js';
import { isCleaningFileName } from './cleaner/swap-files.js';
import { offsetFileName, parseOffsetFileName } from './segment.js';

export interface RecoveryPoint {
  readonly segmentBase: number;
  readonly position: number;
  /** Offset of the batch at `position`: where the scan's offsets go on from. */
  readonly nextOffset: number;
}

const RECOVERY_POINT_FILE = 'recovery-point';
const LOG_START_OFFSET_FILE = 'log-start-offset';
const CLEANER_OFFSET_FILE = 'cleaner-offset';
const VERSION = 1;
/** Checksum and version, before each file's fields. */
const HEADER_SIZE = 6;

const SNAPSHOT_SUFFIX = '.snapshot';
/** Snapshots kept: the newest, and older ones to fall back on if it is damaged. */
const SNAPSHOTS_KEPT = 3;

export async function readRecoveryPoint(dir: string): Promise<RecoveryPoint | undefined> {
  const bytes = await readChecked(join(dir, RECOVERY_POINT_FILE), 24);
  if (bytes === undefined) return undefined;
  return {
    segmentBase: Number(bytes.readBigInt64BE(6)),
    position: Number(bytes.readBigInt64BE(14)),
    nextOffset: Number(bytes.readBigInt64BE(22)),
  };
}

/** The caller has fsynced the log and index up to `point`. */
export function writeRecoveryPoint(dir: string, point: RecoveryPoint): Promise<void> {
  const bytes = Buffer.alloc(HEADER_SIZE + 24);
  bytes.writeBigInt64BE(BigInt(point.segmentBase), 6);
  bytes.writeBigInt64BE(BigInt(point.position), 14);
  bytes.writeBigInt64BE(BigInt(point.nextOffset), 22);
  return writeChecked(join(dir, RECOVERY_POINT_FILE), bytes);
}

/** Undefined when none was stored, or the file is damaged. */
export function readLogStartOffset(dir: string): Promise<number | undefined> {
  return readOffset(join(dir, LOG_START_OFFSET_FILE));
}

export function writeLogStartOffset(dir: string, offset: number): Promise<void> {
  return writeOffset(join(dir, LOG_START_OFFSET_FILE), offset);
}

/** Undefined when none was stored, or the file is damaged. */
export function readCleanerOffset(dir: string): Promise<number | undefined> {
  return readOffset(join(dir, CLEANER_OFFSET_FILE));
}

async function readOffset(path: string): Promise<number | undefined> {
  const bytes = await readChecked(path, 8);
  return bytes === undefined ? undefined : Number(bytes.readBigInt64BE(HEADER_SIZE));
}

export function writeCleanerOffset(dir: string, offset: number): Promise<void> {
  return writeOffset(join(dir, CLEANER_OFFSET_FILE), offset);
}

function writeOffset(path: string, offset: number): Promise<void> {
  const bytes = Buffer.alloc(HEADER_SIZE + 8);
  bytes.writeBigInt64BE(BigInt(offset), HEADER_SIZE);
  return writeChecked(path, bytes);
}

/** The file's bytes, header included, if it holds `fieldsSize` bytes of fields under a sound header. */
async function readChecked(path: string, fieldsSize: number): Promise<Buffer | undefined> {
  const bytes = await readFileIfExists(path);
  if (bytes?.length !== HEADER_SIZE + fieldsSize || crc32c(bytes.subarray(4)) !== bytes.readUInt32BE(0)) return undefined;
  return bytes.readUInt16BE(4) === VERSION ? bytes : undefined;
}

/** Fills in the header of `bytes`, whose fields follow it, and stores them. */
function writeChecked(path: string, bytes: Buffer): Promise<void> {
  bytes.writeUInt16BE(VERSION, 4);
  bytes.writeUInt32BE(crc32c(bytes.subarray(4)), 0);
  return writeFileDurably(path, bytes);
}

/** Whether brook writes files of this name in a partition directory. */
export function isPartitionFileName(name: string): boolean {
  return (
    name === RECOVERY_POINT_FILE ||
    name === LOG_START_OFFSET_FILE ||
    name === CLEANER_OFFSET_FILE ||
    name.endsWith('.tmp') ||
    isCleaningFileName(name) ||
    ['.log', '.index', SNAPSHOT_SUFFIX].some((suffix) => parseOffsetFileName(name, suffix) !== undefined)
  );
}

export function snapshotPath(dir: string, offset: number): string {
  return join(dir, offsetFileName(offset, SNAPSHOT_SUFFIX));
}

/** Offsets of the stored snapshots, newest first. */
export async function snapshotOffsets(dir: string): Promise<number[]> {
  const offsets: number[] = [];
  for (const name of await readdir(dir)) {
    const offset = parseOffsetFileName(name, SNAPSHOT_SUFFIX);
    if (offset !== undefined) offsets.push(offset);
  }
  return offsets.sort((a, b) => b - a);
}

/** Stores a snapshot, then drops those beyond the newest few and those older than the log start. */
export async function writeSnapshot(dir: string, offset: number, bytes: Buffer, logStartOffset: number): Promise<void> {
  await writeFileDurably(snapshotPath(dir, offset), bytes);
  await pruneSnapshots(dir, logStartOffset);
}

export async function pruneSnapshots(dir: string, logStartOffset: number): Promise<void> {
  const offsets = await snapshotOffsets(dir);
  const stale = offsets.filter((offset, i) => i >= SNAPSHOTS_KEPT || offset < logStartOffset);
  await Promise.all(stale.map((offset) => rm(snapshotPath(dir, offset), { force: true })));
}
