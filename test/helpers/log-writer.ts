/**
 * Appends traffic() to a partition log until killed, printing after each acknowledged batch how
 * many batches are acknowledged. Usage: node --import tsx log-writer.ts <dir> <none|always>
 */
import { PartitionLog } from '../../src/log/partition-log.js';
import { KILL_TEST_OPTIONS, traffic } from './log-traffic.js';
import { written } from './log.js';

const [dir, flush, producers] = process.argv.slice(2);
if (dir === undefined || (flush !== 'none' && flush !== 'always')) throw new Error('usage: log-writer.ts <dir> <none|always> [producers]');
const log = await PartitionLog.open(dir, { ...KILL_TEST_OPTIONS, flush });
const batches = traffic(producers === undefined ? undefined : Number(producers));
let appended = 0;
let acked = 0;

function burst(): void {
  for (let k = 0; k < 20; k++) {
    const { bytes, header } = batches.next().value!;
    const count = ++appended;
    void log.whenWritten(written(log.append(bytes, header, Date.now()))).then(() => {
      if (count > acked) {
        acked = count;
        process.stdout.write(`${count}\n`);
      }
    });
  }
  setImmediate(burst);
}
burst();
