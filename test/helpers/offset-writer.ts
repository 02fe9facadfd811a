/**
 * Applies offsetChange(seed, i, false) to an offset store over `__consumer_offsets` in <dir> for i
 * from <start> on, eight at a time, printing `a <i>` once change i is acknowledged and `f <i>`
 * once it is refused. Runs until killed.
 * Usage: node --import tsx offset-writer.ts <dir> <none|always|interval:MS> <seed> <start>
 */
import { OffsetStore } from '../../src/groups/offset-store.js';
import { parseFlushPolicy } from '../../src/settings/kinds.js';
import { openOffsetsLog } from './offsets-log.js';
import { applyToStore, offsetChange, recordingLog } from './offset-traffic.js';

const [dir, flush, seed, start] = process.argv.slice(2);
if (dir === undefined || flush === undefined || seed === undefined || start === undefined) {
  throw new Error('usage: offset-writer.ts <dir> <flush> <seed> <start>');
}
const IN_FLIGHT = 8;
const offsets = await openOffsetsLog(dir, { flush: parseFlushPolicy(flush) });
const store = await OffsetStore.open(dir, offsets.log, recordingLog());
let next = Number(start);

function issue(): void {
  const i = next++;
  applyToStore(store, offsetChange(Number(seed), i, false)).then(
    () => {
      process.stdout.write(`a ${i}\n`);
      issue();
    },
    () => {
      process.stdout.write(`f ${i}\n`);
      issue();
    },
  );
}

for (let k = 0; k < IN_FLIGHT; k++) issue();
