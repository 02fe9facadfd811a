/**
 * Opening a partition directory after any stop. What lies before the recovery point was fsynced
 * and is trusted; what follows is checked batch by batch and cut at the first torn or corrupt
 * batch, so it is never served. Producer state comes from the newest sound snapshot, and the
 * batches after it are replayed through the same path appends take.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BATCH_HEADER_SIZE, batchTime, readBatchHeader } from '../protocol/record-batch.js';
import { readAt, scanBatches } from './batch-file.js';
import { OffsetIndex } from './offset-index.js';
import type { ResolvedLogOptions } from './options.js';
import { readRecoveryPoint, snapshotOffsets, snapshotPath, writeRecoveryPoint, writeSnapshot, type RecoveryPoint } from './partition-files.js';
import { finishSwaps } from './cleaner/swap-files.js';
import { ProducerStates } from './producer-states.js';
import { closeSegments, offsetFileName, parseOffsetFileName, Segment } from './segment.js';

export interface RecoveryReport {
  /** Bytes checked batch by batch after the recovery point: none after a clean shutdown. */
  readonly scannedBytes: number;
  /** Bytes of torn or corrupt data cut off, later segments included. */
  readonly truncatedBytes: number;
  /** Offset of the snapshot producer state was loaded from. */
  readonly snapshotOffset: number | undefined;
  /** Batches replayed into producer state after that snapshot. */
  readonly replayedBatches: number;
}

export interface RecoveredLog {
  /** Oldest first; the last is open for appending. */
  readonly segments: Segment[];
  readonly logEndOffset: number;
  readonly producers: ProducerStates;
  readonly report: RecoveryReport;
}

const PROGRESS_EVERY_BYTES = 256 * 1024 * 1024;

export async function recoverPartition(dir: string, options: ResolvedLogOptions): Promise<RecoveredLog> {
  const started = Date.now();
  await mkdir(dir, { recursive: true });
  const found = await readdir(dir);
  // Left by an atomic write that did not finish.
  await Promise.all(found.filter((n) => n.endsWith('.tmp')).map((n) => rm(join(dir, n), { force: true })));
  // Left by a cleaning: before its commit point undone, after it finished.
  await finishSwaps(dir, found);
  const names = await readdir(dir);
  const bases = names.flatMap((n) => parseOffsetFileName(n, '.log') ?? []).sort((a, b) => a - b);
  if (bases.length === 0) {
    await writeFile(join(dir, offsetFileName(0, '.log')), '');
    bases.push(0);
  }
  const sizes = await Promise.all(bases.map(async (base) => (await stat(join(dir, offsetFileName(base, '.log')))).size));
  const progress = progressReporter(dir, options);

  const point = await readRecoveryPoint(dir);
  const pointAt = point === undefined ? -1 : bases.indexOf(point.segmentBase);
  const trusted = point !== undefined && pointAt >= 0 && point.position <= sizes[pointAt]! ? point : undefined;
  if (point !== undefined && trusted === undefined) {
    options.report.warn('recovery point does not match the segments: checking its whole segment, or the whole log', { dir, ...point });
  }
  // Segments before the recovery point's were fsynced when they were rolled away from.
  const firstToScan = Math.max(pointAt, 0);
  const segments = bases.slice(0, firstToScan).map((base, i) => new Segment(dir, base, sizes[i]!));
  try {
    let scannedBytes = 0;
    let truncatedBytes = 0;
    let logEndOffset = trusted?.nextOffset ?? bases[0]!;
    const scanned: Segment[] = [];
    const clean = trusted !== undefined && pointAt === bases.length - 1 && trusted.position === sizes[pointAt];
    if (clean) {
      const base = bases[pointAt]!;
      segments.push(new Segment(dir, base, sizes[pointAt]!, await storedIndex(dir, base, sizes[pointAt]!)));
    }
    for (let i = firstToScan; i < bases.length && !clean; i++) {
      const base = bases[i]!;
      if (i > firstToScan && base !== logEndOffset) {
        truncatedBytes += sizes.slice(i).reduce((a, b) => a + b, 0);
        options.report.warn('dropping segments after a gap in the log', { dir, logEndOffset, nextSegment: base });
        break;
      }
      const { segment, nextOffset } = await startScan(dir, base, i === firstToScan ? trusted : undefined);
      segments.push(segment);
      scanned.push(segment);
      const from = segment.size;
      // Scanned from an index entry, its first batch is not among those scanned.
      if (from > 0) segment.firstTimestamp = await firstTimestamp(segment);
      const result = await segment.use((log) =>
        scanBatches(log, { from, to: sizes[i]!, verify: true, nextOffset }, (header) => {
          segment.place(header.baseOffset, header, options.indexIntervalBytes);
          progress(header.size);
        }),
      );
      scannedBytes += result.end - from;
      logEndOffset = result.nextOffset ?? nextOffset;
      if (result.problem !== undefined) {
        truncatedBytes += sizes.slice(i).reduce((a, b) => a + b, 0) - result.end;
        options.report.warn('cutting a torn or corrupt log tail', { dir, segment: base, position: result.end, problem: result.problem });
        break;
      }
    }

    const active = segments[segments.length - 1]!;
    for (const segment of scanned) {
      await segment.openForAppend(false);
      if (segment !== active) await segment.seal();
    }
    if (clean) await active.openForAppend(false);
    if (active.size > 0 && active.firstTimestamp === undefined) active.firstTimestamp = await firstTimestamp(active);
    await active.largest();
    await Promise.all(bases.filter((b) => !segments.some((s) => s.baseOffset === b)).map((b) => deleteSegmentFiles(dir, b)));
    if (!clean) {
      // What was scanned is good now: fsynced and recorded, so a crash loop does not scan it again.
      await active.sync(true);
      await writeRecoveryPoint(dir, { segmentBase: active.baseOffset, position: active.size, nextOffset: logEndOffset });
    }

    const { producers, snapshotOffset, replayedBatches } = await loadProducers(dir, segments, logEndOffset, options, progress, started);
    for (const segment of segments) if (segment !== active) await segment.unload();

    const report = { scannedBytes, truncatedBytes, snapshotOffset, replayedBatches };
    if (scannedBytes > 0 || truncatedBytes > 0 || replayedBatches > 0) {
      options.report.info('recovered partition log', { dir, logEndOffset, ...report, ms: Date.now() - started });
    }
    return { segments, logEndOffset, producers, report };
  } catch (err) {
    // A start that fails (a full disk, say) leaves no file open behind it.
    await closeSegments(segments);
    throw err;
  }
}

/** A segment to scan from the last index entry at or before the recovery point, or from its start; no file opened yet. */
async function startScan(dir: string, base: number, point: RecoveryPoint | undefined): Promise<{ segment: Segment; nextOffset: number }> {
  // Index entries past the recovery point may not have reached the disk.
  const index = point === undefined ? OffsetIndex.empty() : await storedIndex(dir, base, point.position + 1);
  const from = index.last;
  const segment = new Segment(dir, base, from.position, index);
  segment.largestTimestamp = from.timestampBefore;
  return { segment, nextOffset: base + from.relativeOffset };
}

async function firstTimestamp(segment: Segment): Promise<number> {
  return batchTime(readBatchHeader(await segment.use((log) => readAt(log, 0, BATCH_HEADER_SIZE))));
}

async function storedIndex(dir: string, base: number, logSize: number): Promise<OffsetIndex> {
  const bytes = await readFile(join(dir, offsetFileName(base, '.index'))).catch(() => Buffer.alloc(0));
  return OffsetIndex.fromBytes(bytes, logSize);
}

async function deleteSegmentFiles(dir: string, base: number): Promise<void> {
  await Promise.all(['.log', '.index'].map((suffix) => rm(join(dir, offsetFileName(base, suffix)), { force: true })));
}

/** Producer state from the newest sound snapshot, and the batches after it replayed. */
async function loadProducers(
  dir: string,
  segments: Segment[],
  logEndOffset: number,
  options: ResolvedLogOptions,
  progress: (bytes: number) => void,
  /** The time of the restart, which replayed batches count as written at. */
  now: number,
): Promise<{ producers: ProducerStates; snapshotOffset: number | undefined; replayedBatches: number }> {
  const logStartOffset = segments[0]!.baseOffset;
  let producers = new ProducerStates();
  let snapshotOffset: number | undefined;
  for (const offset of await snapshotOffsets(dir)) {
    const path = snapshotPath(dir, offset);
    // A snapshot past the log end covers batches the log lost; one before the log start, batches retention deleted.
    const decoded = offset > logEndOffset || offset < logStartOffset ? undefined : ProducerStates.decode(await readFile(path), now);
    if (decoded?.offset === offset) {
      producers = decoded.states;
      snapshotOffset = offset;
      break;
    }
    if (offset <= logEndOffset && offset >= logStartOffset) options.report.warn('producer snapshot is damaged: falling back', { path });
    // The log once reached this offset: what it held from its end on is gone (a machine crash with writes not yet on disk, say).
    if (offset > logEndOffset)
      options.report.warn('the log ends before a producer snapshot taken at a later offset: records were lost', { dir, logEndOffset, snapshotOffset: offset });
    await rm(path, { force: true });
  }
  if (snapshotOffset === undefined && logStartOffset > 0) {
    options.report.warn('no usable producer snapshot: rebuilding producer state from the log start', { dir, logStartOffset });
  }

  const from = snapshotOffset ?? logStartOffset;
  let replayedBatches = 0;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const end = segments[i + 1]?.baseOffset ?? logEndOffset;
    if (end <= from) continue;
    const start = from <= segment.baseOffset ? 0 : (await segment.index()).floorOffset(from - segment.baseOffset).position;
    await segment.use((log) =>
      scanBatches(log, { from: start, to: segment.size, verify: false }, (header, _position, marker) => {
        progress(header.size);
        if (header.baseOffset < from) return;
        producers.replay(header, header.baseOffset, now, marker);
        replayedBatches++;
      }),
    );
  }
  if (replayedBatches > 0) await writeSnapshot(dir, logEndOffset, producers.encode(logEndOffset), logStartOffset);
  return { producers, snapshotOffset, replayedBatches };
}

function progressReporter(dir: string, options: ResolvedLogOptions): (bytes: number) => void {
  let total = 0;
  let reported = 0;
  return (bytes) => {
    total += bytes;
    if (total - reported >= PROGRESS_EVERY_BYTES) {
      reported = total;
      options.report.info('recovering partition log', { dir, mebibytesRead: Math.round(total / 2 ** 20) });
    }
  };
}
