/**
 * Which of the lesson's four checks decided a batch, in the lesson's words, and what it expected:
 * what `brook replay --explain` and the console's replay page say beside each verdict. Pure; the
 * verdict is `check`'s own, this only names the rule that gave it.
 */
import { check, lastSequence, nextSequence, type ProducerState, type SequencedBatch, type Verdict } from './rules.js';

export type RuleNumber = 1 | 2 | 3 | 4;

export interface Explanation {
  readonly verdict: Verdict;
  readonly rule: RuleNumber;
  /** `rule N: ` and the reason, e.g. "rule 4: expected sequence 12, got 14". */
  readonly text: string;
}

export function explain(state: ProducerState | undefined, batch: SequencedBatch): Explanation {
  const verdict = check(state, batch);
  const said = (rule: RuleNumber, reason: string): Explanation => ({ verdict, rule, text: `rule ${rule}: ${reason}` });
  const accepted = verdict.kind === 'append';
  const s = batch.firstSeq;
  if (state === undefined) {
    return said(
      1,
      accepted ? 'new producer must start at sequence 0, and it does' : `new producer must start at sequence 0, not ${s}: the broker has lost track of it`,
    );
  }
  if (batch.epoch < state.epoch) {
    return said(2, `epoch ${batch.epoch} is older than ${state.epoch}: a zombie from before the producer restarted, which must never write again`);
  }
  const range = `${s}..${lastSequence(s, batch.count)}`;
  if (batch.epoch > state.epoch) {
    const newer = `epoch ${batch.epoch} is newer than ${state.epoch}: the producer restarted`;
    return said(3, accepted ? `${newer} and starts at sequence 0; its old window is cleared` : `${newer}, so it must start at sequence 0, not ${s}`);
  }
  if (verdict.kind === 'duplicate') {
    return said(4, `same epoch, and a remembered batch is exactly ${range}: a duplicate, answered with its base offset ${verdict.baseOffset} and not appended`);
  }
  const newest = state.window[state.window.length - 1];
  const expected = newest === undefined ? 0 : nextSequence(newest.lastSeq);
  if (accepted) return said(4, `same epoch: expected sequence ${expected}, and it is`);
  const sameStart = state.window.find((e) => e.firstSeq === s);
  if (sameStart !== undefined) {
    const remembered = `${sameStart.firstSeq}..${sameStart.lastSeq}`;
    return said(4, `same epoch: ${range} starts as the remembered ${remembered} does, but a duplicate must match exactly; expected sequence ${expected}`);
  }
  return said(4, `same epoch: expected sequence ${expected}, got ${s}`);
}
