/** What a partition answers from its segments and tail cache: Fetch's batches and ListOffsets' times. */
import { BATCH_HEADER_SIZE, batchMayReach, batchTime, holdsRecords, offsetAfter } from '../protocol/record-batch.js';
import { readAt, scanBatches, type ReadMemory } from './batch-file.js';
import { intactBatches, LogDamageError } from './log-damage.js';
import type { Segment } from './segment.js';
import type { SegmentList } from './segment-list.js';
import type { TailCache } from './tail-cache.js';

/**
 * A read from disk may return up to this share of maxBytes less than fits, for the bytes between
 * the index entry and the batch wanted, rather than read again from that batch.
 */
const SKIPPED_SHARE = 1 / 8;
/** What a read outside the stored batches returns. */
const NOTHING: Buffer = Buffer.alloc(0);

/** The offsets a read keeps within, as they are at the moment asked. */
export interface ReadBounds {
  readonly logStartOffset: number;
  readonly highWatermark: number;
}

export class PartitionReader {
  constructor(
    private readonly segments: SegmentList,
    private readonly tail: TailCache,
    private readonly bounds: ReadBounds,
  ) {}

  /** PartitionLog.read: up to `upTo` (capped by the high watermark). */
  async read(fetchOffset: number, maxBytes: number, memory: ReadMemory | undefined, upTo: number): Promise<Buffer> {
    const hw = Math.min(upTo, this.bounds.highWatermark);
    if (fetchOffset < this.bounds.logStartOffset || fetchOffset >= hw) return NOTHING;
    const cached = this.tail.read(fetchOffset, maxBytes, hw, memory);
    if (cached !== undefined) return cached;
    let offset = fetchOffset;
    for (
      let segment: Segment | undefined = this.segments.segmentFor(fetchOffset);
      segment !== undefined && segment.baseOffset < hw;
      segment = await this.segments.next(segment)
    ) {
      if (fetchOffset < this.bounds.logStartOffset) return NOTHING; // retention has raced
      // Batches compaction emptied are passed over as gaps are, when they are all an answer
      // would hold: a consumer given only them (kafkajs) may not move past them.
      for (let bytes = await this.readSegment(segment, offset, maxBytes, hw, memory); bytes.length > 0;) {
        if (holdsRecords(bytes)) return bytes;
        offset = offsetAfter(bytes);
        bytes = await this.readSegment(segment, offset, maxBytes, hw, memory);
      }
      // Every segment ends where the next begins (compaction keeps each one's last batch), so
      // offsets missing between them were cut off the file, or its whole file lost: damage, not
      // a gap to pass over in silence. A segment compaction replaced before it was read is read in
      // its replacement.
      const next = this.segments.after(segment);
      if (segment.replacedBy === undefined && next !== undefined && next.baseOffset > offset) {
        throw new LogDamageError(
          segment.logPath,
          segment.written,
          offset,
          `the segment ends before offset ${offset}; the next begins at ${next.baseOffset}`,
          false,
        );
      }
    }
    return NOTHING;
  }

  /** What read() answers from one segment: nothing if no batch in it reaches `fetchOffset`. */
  private readSegment(segment: Segment, fetchOffset: number, maxBytes: number, hw: number, memory: ReadMemory | undefined): Promise<Buffer> {
    return this.segments.use(segment, NOTHING, async (log) => {
      const start = (await segment.index()).floorOffset(fetchOffset - segment.baseOffset);
      const end = segment.written;
      if (start.position >= end) return NOTHING;
      // One read of maxBytes from the index entry on, which usually holds the batch wanted and
      // what follows it.
      const read = await readAt(log, start.position, Math.min(end - start.position, Math.max(maxBytes, BATCH_HEADER_SIZE)), memory);
      let found: { position: number; size: number; baseOffset: number } | undefined;
      const due = segment.baseOffset + start.relativeOffset;
      const scan = await scanBatches(log, { from: start.position, to: end, verify: false, nextOffset: due, read }, (header, position) => {
        if (header.baseOffset >= hw) return false;
        if (header.baseOffset + header.lastOffsetDelta < fetchOffset) return true;
        found = { position, size: header.size, baseOffset: header.baseOffset };
        return false;
      });
      if (found === undefined) {
        if (scan.problem === undefined) return NOTHING;
        throw new LogDamageError(segment.logPath, scan.end, scan.nextOffset ?? due, scan.problem, scan.corrupt === true);
      }
      const at = found.position - start.position;
      // The bytes before the batch are room lost from maxBytes: taken up to a share of it, or when
      // the read holds all there is; otherwise a second read, from the batch.
      const usable = at + found.size <= read.length && (at <= maxBytes * SKIPPED_SHARE || start.position + read.length >= end);
      const bytes = usable ? read.subarray(at) : await readAt(log, found.position, Math.min(end - found.position, Math.max(maxBytes, found.size)), memory);
      const intact = intactBatches(bytes, maxBytes, hw, found.baseOffset, segment.checkedFrom - found.position);
      if (intact.problem !== undefined) throw new LogDamageError(segment.logPath, found.position, found.baseOffset, intact.problem, intact.corrupt === true);
      return bytes.subarray(0, intact.length);
    });
  }

  /** PartitionLog.maxTimestamp. */
  async maxTimestamp(): Promise<number> {
    let largest = -1;
    // The live list, not a copy: a segment compaction replaced meanwhile leads to its replacement.
    for (let segment: Segment | undefined = this.segments.at(0); segment !== undefined; segment = await this.segments.next(segment)) {
      if (segment.baseOffset >= this.bounds.highWatermark) break;
      largest = Math.max(largest, await this.segments.use(segment, -1, () => segment.largest()));
    }
    return largest;
  }

  /** PartitionLog.offsetForTimestamp. */
  async offsetForTimestamp(timestamp: number, from: number): Promise<{ offset: number; timestamp: number } | undefined> {
    const hw = this.bounds.highWatermark;
    const logStart = Math.max(this.bounds.logStartOffset, from);
    for (let segment: Segment | undefined = this.segments.at(0); segment !== undefined; segment = await this.segments.next(segment)) {
      if (segment.baseOffset >= hw) break;
      const found = await this.segments.use(segment, undefined, async (log) => {
        if ((await segment.largest()) < timestamp) return undefined;
        const start = (await segment.index()).floorTimestamp(timestamp);
        let hit: { offset: number; timestamp: number } | undefined;
        await scanBatches(log, { from: start.position, to: segment.written, verify: false }, (header) => {
          if (header.baseOffset >= hw) return false;
          if (!batchMayReach(header, timestamp, logStart)) return true;
          hit = { offset: Math.max(header.baseOffset, logStart), timestamp: batchTime(header) };
          return false;
        });
        return hit;
      });
      if (found !== undefined) return found;
    }
    return undefined;
  }
}
