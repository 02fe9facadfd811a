/** The pure idempotence core and `brook replay`, each against a baseline measured alongside. */
import { spawnSync } from 'node:child_process';
import { check, commit, type ProducerState } from '../src/idempotence/rules.js';
import { BROOK_BIN } from '../test/helpers/cli.js';

interface Row {
  scenario: string;
  brook: string;
  reference: string;
  ratio: string;
}

function perSecond(n: number, run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return n / (Number(process.hrtime.bigint() - start) / 1e9);
}

export async function coreBench(smoke: boolean): Promise<Row[]> {
  const n = smoke ? 100_000 : 5_000_000;
  const producers = 1000;
  // The rules: check + commit for in-sequence batches of 100 records over 1000 producers.
  const rules = perSecond(n, () => {
    const states = new Map<number, ProducerState>();
    const offsets = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const pid = i % producers;
      const state = states.get(pid);
      const batch = { epoch: 0, firstSeq: ((i / producers) | 0) * 100, count: 100 };
      if (check(state, batch).kind === 'append') {
        const base = offsets.get(pid) ?? 0;
        states.set(pid, commit(state, batch, base));
        offsets.set(pid, base + 100);
      }
    }
  });
  // Baseline: the same map traffic with no rules at all.
  const baseline = perSecond(n, () => {
    const states = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const pid = i % producers;
      states.set(pid, (states.get(pid) ?? 0) + 100);
    }
  });
  const lines = smoke ? 20_000 : 1_000_000;
  const input = Array.from({ length: lines }, (_, i) => `producer=${i % 100} epoch=0 partition=p${i % 10} seq=${Math.floor(i / 1000)} count=1`).join('\n') + '\n';
  const replayRate = perSecond(lines, () => {
    const r = spawnSync(process.execPath, [BROOK_BIN, 'replay'], { input, maxBuffer: 1 << 30 });
    if (r.status !== 0) throw new Error(`brook replay failed: ${r.stderr.toString()}`);
  });
  const catRate = perSecond(lines, () => {
    spawnSync('wc', ['-l'], { input, maxBuffer: 1 << 30 });
  });
  return [
    { scenario: 'idempotence check+commit per second', brook: Math.round(rules).toLocaleString('en-US'), reference: `${Math.round(baseline).toLocaleString('en-US')} (bare Map get+set)`, ratio: (rules / baseline).toFixed(2) },
    { scenario: 'brook replay lines per second', brook: Math.round(replayRate).toLocaleString('en-US'), reference: `${Math.round(catRate).toLocaleString('en-US')} (wc -l)`, ratio: (replayRate / catRate).toFixed(3) },
  ];
}
