/**
 * The thread produced batches too large to open on the event loop are checked on
 * (batch-checks-thread.ts): their records are decompressed and walked here, so that neither that
 * work nor the memory it takes and gives back holds up the broker's requests.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { answerCalls } from '../threads/worker-calls.js';
import { BATCH_HEADER_SIZE, validateProducedBatch, type BatchHeader, type TimestampRules } from '../protocol/record-batch.js';
import { isRefusal, type Refusal } from '../protocol/refusal.js';

export interface CheckRequest {
  readonly batch: Uint8Array;
  /** What the request's records may still take once decompressed. */
  readonly room: number;
  readonly rules: TimestampRules;
  readonly now: number;
  readonly keysRequiredIn: string | undefined;
}

/** The room left, with the batch's header as checked and its first bytes as stamped, or why it is refused. */
export type CheckAnswer = { readonly room: number } & ({ readonly header: BatchHeader; readonly stamped: Uint8Array } | { readonly refused: Refusal });

// Records decompressed here are held by the codecs' native memory, which V8 neither counts as
// pressure nor frees until a collection and then a turn of the event loop: batch after batch
// would pile up by the gigabyte. So each check waits until the one before is collected and freed,
// and the thread holds one batch's records at a time whatever the number of connections.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
let freed: Promise<unknown> = Promise.resolve();
/** The codecs' native memory is freed after a collection, at the event loop's next turn. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function check({ batch, room, rules, now, keysRequiredIn }: CheckRequest): CheckAnswer {
  const records = Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
  const left = { bytes: room };
  const header = validateProducedBatch(records, left, rules, now, keysRequiredIn);
  if (isRefusal(header)) return { room: left.bytes, refused: header };
  // A copy of its own: a view would carry the whole batch back.
  return { header, stamped: new Uint8Array(records.subarray(0, BATCH_HEADER_SIZE)), room: left.bytes };
}

answerCalls((request: CheckRequest) => {
  const answer = freed.then(() => check(request));
  freed = answer.finally(collect).then(nextTurn, nextTurn);
  return answer;
});
