/** The state `brook replay` keeps: per partition a log end offset and each producer's rules state. */
import { check, commit, type ProducerState, type Verdict } from '../idempotence/rules.js';
import { BatchLineError, type BatchLine } from './batch-line.js';

interface PartitionState {
  logEnd: number;
  readonly producers: Map<string, ProducerState>;
}

export class ReplaySession {
  private readonly partitions = new Map<string, PartitionState>();

  /** Judges the batch and, when accepted, appends it; returns the reply line. */
  apply(batch: BatchLine, explain: boolean): string {
    let partition = this.partitions.get(batch.partition);
    if (partition === undefined) {
      partition = { logEnd: 0, producers: new Map() };
      this.partitions.set(batch.partition, partition);
    }
    const state = partition.producers.get(batch.producer);
    const verdict = check(state, batch);
    let reply = replyText(verdict, partition.logEnd);
    if (verdict.kind === 'append') {
      // Offsets are JavaScript numbers: exact up to 2^53 − 1, far past any real log.
      if (partition.logEnd + batch.count > Number.MAX_SAFE_INTEGER) {
        throw new BatchLineError(`log end offset of partition ${batch.partition} would pass 2^53 − 1`);
      }
      partition.producers.set(batch.producer, commit(state, batch, partition.logEnd));
      partition.logEnd += batch.count;
    }
    if (explain) reply += `  log_end=${partition.logEnd}  window=${windowText(partition.producers.get(batch.producer))}`;
    return reply;
  }
}

function replyText(verdict: Verdict, logEnd: number): string {
  switch (verdict.kind) {
    case 'append':
      return `OK base=${logEnd}`;
    case 'duplicate':
      return `DUPLICATE base=${verdict.baseOffset}`;
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
