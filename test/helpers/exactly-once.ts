/** Reads a topic back and compares it with what a producer was told: every value is unique. */
import { run } from './external.js';

/** [partition, offset, value] */
export type Placed = readonly [number, number, string];

/** Every record of every partition of `topic`, read with kcat to the end. */
export async function readTopic(bootstrap: string, topic: string): Promise<Placed[]> {
  const r = await run('kcat', ['-C', '-b', bootstrap, '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%p %o %s\\n']);
  if (r.code !== 0) throw new Error(`kcat -C exited ${r.code}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [p, o, v] = l.split(' ');
      return [Number(p), Number(o), v!] as const;
    });
}

export interface Tally {
  readonly acked: number;
  readonly read: number;
  /** Extra copies of values read more than once. */
  readonly duplicates: number;
  /** Acknowledged values not read back. */
  readonly losses: number;
  /** Acknowledged values read back somewhere other than the acknowledged partition and offset. */
  readonly misplaced: number;
  /** Values written though never acknowledged (the producer gave up on them or was stopped). */
  readonly unacked: number;
}

export function tally(acked: readonly Placed[], read: readonly Placed[]): Tally {
  const at = new Map<string, string>();
  let duplicates = 0;
  for (const [p, o, v] of read) {
    if (at.has(v)) duplicates++;
    else at.set(v, `${p}@${o}`);
  }
  const ackedValues = new Set(acked.map(([, , v]) => v));
  return {
    acked: acked.length,
    read: read.length,
    duplicates,
    losses: acked.filter(([, , v]) => !at.has(v)).length,
    misplaced: acked.filter(([p, o, v]) => at.has(v) && at.get(v) !== `${p}@${o}`).length,
    unacked: [...at.keys()].filter((v) => !ackedValues.has(v)).length,
  };
}

export function describeTally(t: Tally): string {
  return `acked ${t.acked}, read ${t.read}: duplicates ${t.duplicates}, losses ${t.losses}, misplaced ${t.misplaced}, written unacked ${t.unacked}`;
}
