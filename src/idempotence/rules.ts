/**
 * The broker-side rules of the idempotent producer, for one (partition, producer id).
 * Pure: no I/O, no clock. `check` only judges a batch; `commit` gives the state after an
 * accepted batch has really been appended, so a failed append leaves the state untouched.
 */

/** Batches remembered per producer: the default max.in.flight.requests.per.connection. */
export const WINDOW_SIZE = 5;

/** Producer epochs are int16: the highest one a producer id can reach. */
export const MAX_EPOCH = 32767;

/** Sequence numbers are int32 and wrap: after 2147483647 comes 0. */
const SEQUENCE_MODULUS = 2 ** 31;

export interface WindowEntry {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly baseOffset: number;
}

export interface ProducerState {
  readonly epoch: number;
  /** Accepted batches, oldest first, at most WINDOW_SIZE. */
  readonly window: readonly WindowEntry[];
}

export interface SequencedBatch {
  readonly epoch: number;
  readonly firstSeq: number;
  /** Number of records, at least 1. */
  readonly count: number;
}

export type Verdict =
  { readonly kind: 'append' } | { readonly kind: 'duplicate'; readonly baseOffset: number } | { readonly kind: 'out_of_order' } | { readonly kind: 'fenced' };

const APPEND: Verdict = { kind: 'append' };
const OUT_OF_ORDER: Verdict = { kind: 'out_of_order' };
const FENCED: Verdict = { kind: 'fenced' };

export function lastSequence(firstSeq: number, count: number): number {
  return (firstSeq + count - 1) % SEQUENCE_MODULUS;
}

export function nextSequence(seq: number): number {
  return (seq + 1) % SEQUENCE_MODULUS;
}

/** Judges a batch against the remembered state; changes nothing. */
export function check(state: ProducerState | undefined, batch: SequencedBatch): Verdict {
  // 1. Unknown producer: it must start at 0, or we have lost track of it.
  if (state === undefined) return batch.firstSeq === 0 ? APPEND : OUT_OF_ORDER;
  // 2. Older epoch: a zombie from before the producer restarted.
  if (batch.epoch < state.epoch) return FENCED;
  // 3. Newer epoch: a restarted producer begins a new numbering at 0.
  if (batch.epoch > state.epoch) return batch.firstSeq === 0 ? APPEND : OUT_OF_ORDER;
  // 4. Same epoch: an exact replay of a remembered batch, or the very next sequence.
  const lastSeq = lastSequence(batch.firstSeq, batch.count);
  for (const entry of state.window) {
    if (entry.firstSeq === batch.firstSeq && entry.lastSeq === lastSeq) {
      return { kind: 'duplicate', baseOffset: entry.baseOffset };
    }
  }
  const newest = state.window[state.window.length - 1];
  const expected = newest === undefined ? 0 : nextSequence(newest.lastSeq);
  return batch.firstSeq === expected ? APPEND : OUT_OF_ORDER;
}

/** The state after `batch`, judged `append`, was written at `baseOffset`. */
export function commit(state: ProducerState | undefined, batch: SequencedBatch, baseOffset: number): ProducerState {
  return { epoch: batch.epoch, window: windowAfter(state, batch, baseOffset) };
}

/** The window after `batch`, judged `append`, was written at `baseOffset`. */
export function windowAfter(state: ProducerState | undefined, batch: SequencedBatch, baseOffset: number): WindowEntry[] {
  // A new epoch drops the old numbering's window; otherwise the newest WINDOW_SIZE − 1 stay.
  const old = state === undefined || state.epoch !== batch.epoch ? [] : state.window;
  const kept = Math.min(old.length, WINDOW_SIZE - 1);
  // An array of exactly the right length: spread or push would over-allocate, per producer state.
  const window = new Array<WindowEntry>(kept + 1);
  for (let i = 0; i < kept; i++) window[i] = old[old.length - kept + i]!;
  window[kept] = { firstSeq: batch.firstSeq, lastSeq: lastSequence(batch.firstSeq, batch.count), baseOffset };
  return window;
}
