/** The broker's side of the cleaner's thread (clean-worker.ts): requests sent, answers awaited. */
import { WorkerCalls } from '../../threads/worker-calls.js';
import type { WorkRequest } from './clean-worker.js';
import type { CleanedCopy, SegmentFile } from './segment-work.js';

export class CleanerThread {
  private readonly worker: WorkerCalls;

  constructor(dedupeBufferBytes: number) {
    this.worker = new WorkerCalls('./clean-worker', import.meta.url, "the log cleaner's thread", { dedupeBufferBytes });
  }

  clearMap(): Promise<void> {
    return this.call({ op: 'clear' }) as Promise<void>;
  }

  /** Puts the segment's keys in the offset map; false once it is full. */
  mapSegment(segment: SegmentFile): Promise<boolean> {
    return this.call({ op: 'map', segment }) as Promise<boolean>;
  }

  /** Writes the segment's cleaned copy beside it, judged by the offset map; undefined when nothing changes. */
  cleanSegment(
    segment: SegmentFile,
    tombstonesBefore: number,
    producerBatches: readonly number[],
    indexIntervalBytes: number,
  ): Promise<CleanedCopy | undefined> {
    return this.call({ op: 'clean', segment, tombstonesBefore, producerBatches, indexIntervalBytes }) as Promise<CleanedCopy | undefined>;
  }

  close(): Promise<void> {
    return this.worker.close();
  }

  private call(request: WorkRequest): Promise<unknown> {
    return this.worker.call(request);
  }
}
