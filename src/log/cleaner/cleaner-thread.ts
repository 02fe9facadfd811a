/** The broker's side of the cleaner's thread (clean-worker.ts): requests sent, answers awaited. */
import { WorkerCalls } from '../../threads/worker-calls.js';
import type { SegmentRun, WorkRequest } from './clean-worker.js';
import type { CleanedCopy, SegmentFile } from './segment-work.js';

/**
 * What the thread keeps of the segments it maps (their bytes and decompressed records), so that
 * the cleaning pass, which starts where the map's did, need not read them again: all of a log
 * of small segments like librdkafka's compaction test's, the first few of a large one.
 */
const READ_ONCE_BYTES = 64 * 1024 * 1024;

export class CleanerThread {
  private readonly worker: WorkerCalls;

  constructor(dedupeBufferBytes: number) {
    this.worker = new WorkerCalls('./clean-worker', import.meta.url, "the log cleaner's thread", { dedupeBufferBytes, readOnceBytes: READ_ONCE_BYTES });
  }

  /** Empties the offset map and drops a cleaned group left open. */
  clearMap(): Promise<void> {
    return this.call({ op: 'clear' }) as Promise<void>;
  }

  /** Puts the segments' keys in the offset map, in order; how many went in whole (fewer once it is full), and the bytes read. */
  mapSegments(segments: readonly SegmentFile[]): Promise<{ mapped: number; bytesRead: number }> {
    return this.call({ op: 'map', segments }) as Promise<{ mapped: number; bytesRead: number }>;
  }

  /**
   * Cleans the segments, in order, into the group being written, judged by the offset map,
   * starting a group if none is open: how many it took (fewer when the group holds a segment
   * already and the next does not fit in `maxBytes` with it: seal the group, then go on from
   * there), and the bytes read. `producerBatches`: the base offsets of the batches in a
   * producer's window among them.
   */
  cleanInto(
    segments: readonly SegmentRun[],
    tombstonesBefore: number,
    producerBatches: readonly number[],
    indexIntervalBytes: number,
    maxBytes: number,
  ): Promise<{ taken: number; bytesRead: number }> {
    return this.call({ op: 'clean', segments, tombstonesBefore, producerBatches, indexIntervalBytes, maxBytes }) as Promise<{
      taken: number;
      bytesRead: number;
    }>;
  }

  /** Writes out and fsyncs the group's cleaned copy beside its first segment; undefined, nothing left, when it changes nothing. */
  sealGroup(indexIntervalBytes: number): Promise<CleanedCopy | undefined> {
    return this.call({ op: 'seal', indexIntervalBytes }) as Promise<CleanedCopy | undefined>;
  }

  /** Drops the group being written. */
  discardGroup(): Promise<void> {
    return this.call({ op: 'discard' }) as Promise<void>;
  }

  close(): Promise<void> {
    return this.worker.close();
  }

  private call(request: WorkRequest): Promise<unknown> {
    return this.worker.call(request);
  }
}
