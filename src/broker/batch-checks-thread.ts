/**
 * The broker's side of the thread that checks produced batches whose records may decompress to
 * more than the event loop should (batch-checks-worker.ts). One thread, started when first
 * needed, checks them one after another, so that they never take more than one batch's records
 * at a time, as on the event loop. It ends once idle for IDLE_END_MS, so that what its busiest
 * moment took (its heap grows to the largest batch it opened) goes back to the system after a
 * burst, and starts again for the next such batch.
 */
import type { BatchHeader, DecompressionRoom, TimestampRules } from '../protocol/record-batch.js';
import type { Refusal } from '../protocol/refusal.js';
import { DECOMPRESSION_WORKING_FACTOR } from '../protocol/compression.js';
import type { Lane, MemoryGrant } from '../server/request-memory-pool.js';
import { WorkerCalls } from '../threads/worker-calls.js';
import type { CheckAnswer, CheckRequest } from './batch-checks-worker.js';

/** Long enough that steady large batches keep one thread, short beside the time memory is watched. */
const IDLE_END_MS = 5000;

let thread: WorkerCalls | undefined;

/**
 * validateProducedBatch() of `batch` on the checks thread: once the answer comes, `batch`'s header
 * is stamped as it would have been here and `room` is taken from; or the batch's Refusal. `room`
 * must not be used meanwhile.
 *
 * First, what its records may decompress to (`bound`, within the room) is taken from `memory`
 * as the codecs take it, working memory included: the batch waits its turn until that is free.
 */
export async function validateOffThread(
  batch: Buffer,
  room: DecompressionRoom,
  rules: TimestampRules,
  now: number,
  keysRequiredIn: string | undefined,
  memory: { readonly lane: Lane; readonly bound: number },
): Promise<BatchHeader | Refusal> {
  const grant = await taken(memory.lane, Math.min(Math.ceil(Math.min(memory.bound, room.bytes) * DECOMPRESSION_WORKING_FACTOR), memory.lane.limit));
  try {
    if (thread === undefined || thread.exited)
      thread = new WorkerCalls('./batch-checks-worker', import.meta.url, "the produced batches' checks thread", undefined, IDLE_END_MS);
    const request: CheckRequest = { batch, room: room.bytes, rules, now, keysRequiredIn };
    const answer = (await thread.call(request)) as CheckAnswer;
    // Taken whether the batch is refused or not, as on the event loop.
    room.bytes = answer.room;
    if ('refused' in answer) return answer.refused;
    batch.set(answer.stamped, 0);
    return answer.header;
  } finally {
    grant.release();
  }
}

/** `bytes` of `lane`, once granted. */
function taken(lane: Lane, bytes: number): Promise<MemoryGrant> {
  return new Promise((resolve) => {
    const grant = lane.take(bytes, () => resolve(grant));
    if (grant.granted) resolve(grant);
  });
}
