/** The state `brook replay` keeps: per partition a log end offset and each producer's rules state. */
import { explain } from '../idempotence/explain.js';
import { check, commit, type ProducerState, type Verdict } from '../idempotence/rules.js';
import { BatchLineError, type BatchLine } from './batch-line.js';

interface PartitionState {
  logEnd: number;
  readonly producers: Map<string, ProducerState>;
}

/** What one batch line did: its verdict, and the partition's log end and the producer's state after it. */
export interface ReplayStep {
  readonly verdict: Verdict;
  /** The offset an accepted batch was given, or a duplicate's first copy's. */
  readonly baseOffset: number | undefined;
  readonly logEnd: number;
  readonly state: ProducerState | undefined;
  /** The rule that decided and what it expected, when asked for. */
  readonly explanation: string | undefined;
}

export class ReplaySession {
  private readonly partitions = new Map<string, PartitionState>();

  /** Judges the batch and, when accepted, appends it; `explained` says which rule decided. */
  step(batch: BatchLine, explained = false): ReplayStep {
    let partition = this.partitions.get(batch.partition);
    if (partition === undefined) {
      partition = { logEnd: 0, producers: new Map() };
      this.partitions.set(batch.partition, partition);
    }
    const state = partition.producers.get(batch.producer);
    const explanation = explained ? explain(state, batch) : undefined;
    const verdict = explanation?.verdict ?? check(state, batch);
    const baseOffset = verdict.kind === 'append' ? partition.logEnd : verdict.kind === 'duplicate' ? verdict.baseOffset : undefined;
    if (verdict.kind === 'append') {
      // Offsets are JavaScript numbers: exact up to 2^53 − 1, far past any real log.
      if (partition.logEnd + batch.count > Number.MAX_SAFE_INTEGER) {
        throw new BatchLineError(`log end offset of partition ${batch.partition} would pass 2^53 − 1`);
      }
      partition.producers.set(batch.producer, commit(state, batch, partition.logEnd));
      partition.logEnd += batch.count;
    }
    return { verdict, baseOffset, logEnd: partition.logEnd, state: partition.producers.get(batch.producer), explanation: explanation?.text };
  }

  /** The reply line of `step`, with the log end and window after it and the rule that decided when `explained`. */
  apply(batch: BatchLine, explained: boolean): string {
    const step = this.step(batch, explained);
    const reply = replyText(step);
    return explained ? `${reply}  log_end=${step.logEnd}  window=${windowText(step.state)}  ${step.explanation}` : reply;
  }
}

export function replyText({ verdict, baseOffset }: ReplayStep): string {
  switch (verdict.kind) {
    case 'append':
      return `OK base=${baseOffset}`;
    case 'duplicate':
      return `DUPLICATE base=${baseOffset}`;
    case 'out_of_order':
      return 'OUT_OF_ORDER';
    case 'fenced':
      return 'FENCED';
  }
}

function windowText(state: ProducerState | undefined): string {
  if (state === undefined || state.window.length === 0) return '[]';
  return state.window.map((e) => `[${e.firstSeq}..${e.lastSeq}]`).join(' ');
}
