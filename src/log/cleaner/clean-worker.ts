/**
 * The cleaner's thread: it holds the offset map and does the work on segment files
 * (segment-work.ts), so that reading, judging and writing records never holds up requests on
 * the broker's thread. It answers each request (cleaner-thread.ts) by its id.
 */
import { workerData } from 'node:worker_threads';
import { answerCalls } from '../../threads/worker-calls.js';
import type { CleaningRules } from './clean-rule.js';
import { OffsetMap } from './offset-map.js';
import { cleanSegmentFile, mapSegment, type SegmentFile } from './segment-work.js';

export type WorkRequest =
  | { readonly op: 'clear' }
  | { readonly op: 'map'; readonly segment: SegmentFile }
  | {
      readonly op: 'clean';
      readonly segment: SegmentFile;
      readonly tombstonesBefore: number;
      readonly producerBatches: readonly number[];
      readonly indexIntervalBytes: number;
    };

const map = new OffsetMap((workerData as { dedupeBufferBytes: number }).dedupeBufferBytes);

async function work(request: WorkRequest): Promise<unknown> {
  switch (request.op) {
    case 'clear':
      map.clear();
      return undefined;
    case 'map':
      return mapSegment(request.segment, map);
    case 'clean': {
      const rules: CleaningRules = {
        latest: (key) => map.get(key),
        tombstonesBefore: request.tombstonesBefore,
        producerBatches: new Set(request.producerBatches),
      };
      return cleanSegmentFile(request.segment, rules, request.indexIntervalBytes);
    }
  }
}

answerCalls(work);
