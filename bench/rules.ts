/** The pure idempotence rules (check + commit) against the same map traffic with no rules at all. */
import { check, commit, type ProducerState } from '../src/idempotence/rules.js';
import { alternating, highest } from './measure.js';
import { compared, type Row } from './table.js';

const PRODUCERS = 1000;

/** In-sequence batches of 100 records, round-robin over the producers: calls per second. */
function withRules(n: number): number {
  const start = performance.now();
  const states = new Map<number, ProducerState>();
  const offsets = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const pid = i % PRODUCERS;
    const state = states.get(pid);
    const batch = { epoch: 0, firstSeq: ((i / PRODUCERS) | 0) * 100, count: 100 };
    if (check(state, batch).kind === 'append') {
      const base = offsets.get(pid) ?? 0;
      states.set(pid, commit(state, batch, base));
      offsets.set(pid, base + 100);
    }
  }
  return n / ((performance.now() - start) / 1000);
}

function bareMap(n: number): number {
  const start = performance.now();
  const states = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const pid = i % PRODUCERS;
    states.set(pid, (states.get(pid) ?? 0) + 100);
  }
  return n / ((performance.now() - start) / 1000);
}

export async function rulesBench(smoke: boolean): Promise<Row[]> {
  const n = smoke ? 100_000 : 5_000_000;
  const [rules, bare] = (await alternating(smoke ? 1 : 3, [async () => withRules(n), async () => bareMap(n)])).map(highest);
  return [compared('idempotence check+commit per second', rules!, bare!, 'bare Map get+set')];
}
