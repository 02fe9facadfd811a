/** `brook replay` reading batch lines and answering each, against `wc -l` merely counting them. */
import { spawnSync } from 'node:child_process';
import { BROOK_BIN } from '../test/helpers/cli.js';
import { alternating, highest } from './measure.js';
import { compared, type Row } from './table.js';

/** Lines per second of `command args` reading `input` on stdin. */
function linesPerSecond(lines: number, input: string, command: string, args: readonly string[]): number {
  const start = performance.now();
  const r = spawnSync(command, args, { input, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr.toString()}`);
  return lines / ((performance.now() - start) / 1000);
}

export async function replayBench(smoke: boolean): Promise<Row[]> {
  const lines = smoke ? 20_000 : 1_000_000;
  const input =
    Array.from({ length: lines }, (_, i) => `producer=${i % 100} epoch=0 partition=p${i % 10} seq=${Math.floor(i / 1000)} count=1`).join('\n') + '\n';
  const [replay, wc] = (
    await alternating(smoke ? 1 : 3, [
      async () => linesPerSecond(lines, input, process.execPath, [BROOK_BIN, 'replay']),
      async () => linesPerSecond(lines, input, 'wc', ['-l']),
    ])
  ).map(highest);
  return [compared('brook replay lines per second', replay!, wc!, 'wc -l')];
}
