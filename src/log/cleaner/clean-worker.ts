/**
 * The cleaner's thread: it holds the offset map and the cleaned group being written, and does
 * the work on segment files (segment-work.ts), so that reading, judging and writing records
 * never holds up requests on the broker's thread. It answers each request (cleaner-thread.ts) by
 * its id.
 */
import { workerData } from 'node:worker_threads';
import { answerCalls } from '../../threads/worker-calls.js';
import { OffsetMap } from './offset-map.js';
import { CleanedGroup, mapSegments, type SegmentFile } from './segment-work.js';

export type WorkRequest =
  | { readonly op: 'clear' }
  | { readonly op: 'map'; readonly segments: readonly SegmentFile[] }
  | {
      readonly op: 'clean';
      readonly segment: SegmentFile;
      readonly end: number;
      readonly tombstonesBefore: number;
      readonly producerBatches: readonly number[];
      readonly indexIntervalBytes: number;
      readonly maxBytes: number;
    }
  | { readonly op: 'seal'; readonly indexIntervalBytes: number }
  | { readonly op: 'discard' };

const map = new OffsetMap((workerData as { dedupeBufferBytes: number }).dedupeBufferBytes);
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
      await discard();
      return undefined;
    case 'map':
      return mapSegments(request.segments, map);
    case 'clean': {
      const { segment, end, tombstonesBefore, indexIntervalBytes, maxBytes } = request;
      const producerBatches = new Set(request.producerBatches);
      group ??= await CleanedGroup.open(segment);
      try {
        return await group.add({ segment, end, indexIntervalBytes, maxBytes, rules: { latest: (key) => map.get(key), tombstonesBefore, producerBatches } });
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
