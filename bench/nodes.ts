/** What a simulated cluster (`nodes`) costs: startBroker()'s time and the idle process's memory, 3 nodes against 1. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compared, type Row } from './table.js';

const PROBE = fileURLToPath(new URL('nodes-probe.ts', import.meta.url));

function probe(nodes: number, rounds: number): { startMs: number; idleBytes: number } {
  // A child of its own: --expose-gc, and a process nothing else in this run has grown.
  const r = spawnSync(process.execPath, [...process.execArgv, '--expose-gc', PROBE, String(nodes), String(rounds)]);
  if (r.status !== 0) throw new Error(`nodes-probe failed: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString()) as { startMs: number; idleBytes: number };
}

export function nodesBench(smoke: boolean): Row[] {
  const rounds = smoke ? 1 : 10;
  const one = probe(1, rounds);
  const three = probe(3, rounds);
  const MiB = 1024 * 1024;
  return [
    compared('startBroker() with 3 nodes, fastest start (ms)', three.startMs, one.startMs, '1 node', 1),
    compared('idle process memory (RSS) with 3 nodes started (MiB)', three.idleBytes / MiB, one.idleBytes / MiB, '1 node', 1),
  ];
}
