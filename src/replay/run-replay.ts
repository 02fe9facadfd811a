/** Streams batch lines to reply lines; bad lines get `ERROR …` and a `line N: …` message. */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { once } from 'node:events';
import { BatchLineError, parseBatchLine } from './batch-line.js';
import { ReplaySession } from './session.js';

export interface ReplayOptions {
  readonly explain: boolean;
}

/** Returns the number of bad lines. */
export async function runReplay(input: Readable, output: Writable, errors: Writable, options: ReplayOptions): Promise<number> {
  const session = new ReplaySession();
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  let bad = 0;
  let pending = '';
  const flush = async (): Promise<void> => {
    if (pending === '') return;
    const ok = output.write(pending);
    pending = '';
    if (!ok) await once(output, 'drain');
  };
  for await (const line of lines) {
    lineNo++;
    try {
      const batch = parseBatchLine(line);
      if (batch === undefined) continue;
      pending += session.apply(batch, options.explain) + '\n';
    } catch (err) {
      if (!(err instanceof BatchLineError)) throw err;
      bad++;
      pending += `ERROR ${err.message}\n`;
      errors.write(`line ${lineNo}: ${err.message}\n`);
    }
    if (pending.length >= 65536) await flush();
  }
  await flush();
  return bad;
}
