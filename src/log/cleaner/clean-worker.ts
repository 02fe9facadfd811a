/**
 * The cleaner's thread: it holds the offset map and the cleaned group being written, and does
 * the work on segment files (segment-work.ts), so that reading, judging and writing records
 * never holds up requests on the broker's thread. It answers each request (cleaner-thread.ts) by
 * its id.
 */
import { workerData } from 'node:worker_threads';
import { answerCalls } from '../../threads/worker-calls.js';
import { OffsetMap } from './offset-map.js';
import { CleanedGroup, mapSegments, SegmentsRead, type SegmentFile } from './segment-work.js';

/** A segment to clean, and the offset it ends at (the next one's base). */
export interface SegmentRun {
  readonly segment: SegmentFile;
  readonly end: number;
}

export type WorkRequest =
  | { readonly op: 'clear' }
  | { readonly op: 'map'; readonly segments: readonly SegmentFile[] }
  | {
      readonly op: 'clean';
      readonly segments: readonly SegmentRun[];
      readonly tombstonesBefore: number;
      readonly producerBatches: readonly number[];
      readonly indexIntervalBytes: number;
      readonly maxBytes: number;
    }
  | { readonly op: 'seal'; readonly indexIntervalBytes: number }
  | { readonly op: 'discard' };

const { dedupeBufferBytes, readOnceBytes } = workerData as { dedupeBufferBytes: number; readOnceBytes: number };
const map = new OffsetMap(dedupeBufferBytes);
const read = new SegmentsRead(readOnceBytes);
let group: CleanedGroup | undefined;

async function discard(): Promise<void> {
  const dropped = group;
  group = undefined;
  await dropped?.discard();
}

async function work(request: WorkRequest): Promise<unknown> {
  switch (request.op) {
    case 'clear':
      map.clear();
      read.clear();
      await discard();
      return undefined;
    case 'map':
      return mapSegments(request.segments, map, read);
    case 'clean': {
      const { tombstonesBefore, indexIntervalBytes, maxBytes } = request;
      const rules = { tombstonesBefore, producerBatches: new Set(request.producerBatches) };
      let bytesRead = 0;
      try {
        for (const [taken, { segment, end }] of request.segments.entries()) {
          group ??= await CleanedGroup.open(segment);
          const added = await group.add({ segment, end, indexIntervalBytes, maxBytes, rules, map }, read.take(segment));
          bytesRead += added.bytesRead;
          if (!added.added) return { taken, bytesRead };
        }
        return { taken: request.segments.length, bytesRead };
      } catch (err) {
        // A segment that cannot be read ends the cleaning: nothing of its group is kept.
        await discard();
        throw err;
      }
    }
    case 'seal': {
      const sealing = group;
      group = undefined;
      return sealing?.seal(request.indexIntervalBytes);
    }
    case 'discard':
      return discard();
  }
}

answerCalls(work);
