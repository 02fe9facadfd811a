/**
 * Applies offsetChange(seed, i) to an offset store for i from <start> on, eight at a time,
 * printing `a <i>` once change i is acknowledged and `f <i>` once it is refused. Runs until
 * killed, or, given <failures>, until that many were refused, then closes the store and exits.
 * Usage: node --import tsx offset-writer.ts <dir> <none|always|interval:MS> <seed> <start> <compactionMinBytes> [failures]
 */
import { OffsetStore } from '../../src/groups/offset-store.js';
import { parseFlushPolicy } from '../../src/settings/kinds.js';
import { applyToStore, offsetChange, recordingLog } from './offset-traffic.js';

const [dir, flush, seed, start, compactionMinBytes, failures] = process.argv.slice(2);
if (dir === undefined || flush === undefined || seed === undefined || start === undefined || compactionMinBytes === undefined) {
  throw new Error('usage: offset-writer.ts <dir> <flush> <seed> <start> <compactionMinBytes> [failures]');
}
const IN_FLIGHT = 8;
const store = await OffsetStore.open(dir, { flush: parseFlushPolicy(flush), log: recordingLog(), compactionMinBytes: Number(compactionMinBytes) });
let next = Number(start);
let inFlight = 0;
let refused = 0;
let stopping = false;

function issue(): void {
  while (!stopping && inFlight < IN_FLIGHT) {
    const i = next++;
    inFlight++;
    applyToStore(store, offsetChange(Number(seed), i)).then(
      () => settle(`a ${i}`),
      () => {
        refused++;
        settle(`f ${i}`);
      },
    );
  }
}

function settle(line: string): void {
  process.stdout.write(`${line}\n`);
  inFlight--;
  if (failures !== undefined && refused >= Number(failures)) {
    if (!stopping) {
      stopping = true;
      void store.close().then(() => process.exit(0));
    }
    return;
  }
  issue();
}

issue();
