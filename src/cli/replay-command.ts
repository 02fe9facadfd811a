import { createReadStream } from 'node:fs';
import type { Command } from 'commander';
import { runReplay } from '../replay/run-replay.js';

export function addReplayCommand(program: Command): void {
  program
    .command('replay')
    .description('judge idempotent-producer batches, one per line, and print one reply per batch')
    .argument('[file]', "batch lines to read; '-' or none for standard input", '-')
    .option('--explain', 'append the partition log end and the producer window after each reply', false)
    .action(async (file: string, opts: { explain: boolean }) => {
      const input = file === '-' ? process.stdin : createReadStream(file);
      try {
        const bad = await runReplay(input, process.stdout, process.stderr, { explain: opts.explain });
        process.exitCode = bad > 0 ? 1 : 0;
      } catch (err) {
        process.stderr.write(`brook replay: cannot read ${file}: ${(err as Error).message}\n`);
        process.exitCode = 2;
      }
    });
}
