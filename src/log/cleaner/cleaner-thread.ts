/** The broker's side of the cleaner's thread (clean-worker.ts): requests sent, answers awaited. */
import { WorkerCalls } from '../../threads/worker-calls.js';
import type { WorkRequest } from './clean-worker.js';
import type { CleanedCopy, SegmentFile } from './segment-work.js';

export class CleanerThread {
  private readonly worker: WorkerCalls;

  constructor(dedupeBufferBytes: number) {
    this.worker = new WorkerCalls('./clean-worker', import.meta.url, "the log cleaner's thread", { dedupeBufferBytes });
  }

  /** Empties the offset map and drops a cleaned group left open. */
  clearMap(): Promise<void> {
    return this.call({ op: 'clear' }) as Promise<void>;
  }

  /** Puts the segments' keys in the offset map, in order; how many went in whole (fewer once it is full). */
  mapSegments(segments: readonly SegmentFile[]): Promise<number> {
    return this.call({ op: 'map', segments }) as Promise<number>;
  }

  /**
   * Cleans the segment (ending at offset `end`) into the group being written, judged by the
   * offset map, starting a group if none is open; false, nothing done, when the group holds a
   * segment already and this one does not fit in `maxBytes` with it: seal the group, then ask again.
   */
  cleanInto(
    segment: SegmentFile,
    end: number,
    tombstonesBefore: number,
    producerBatches: readonly number[],
    indexIntervalBytes: number,
    maxBytes: number,
  ): Promise<boolean> {
    return this.call({ op: 'clean', segment, end, tombstonesBefore, producerBatches, indexIntervalBytes, maxBytes }) as Promise<boolean>;
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
