/**
 * Opens a data directory and cleans its compacted partition once, SIGKILLing itself right after
 * the cleaning's swap number <swaps>; exits 0 if the cleaning ends first.
 * Usage: node --import tsx cleaner-child.ts <data dir> <swaps>
 */
import { Storage } from '../../src/log/storage.js';
import { LONG_CLEANING_OPTIONS } from './compacted-log.js';

const [dataDir, swaps] = process.argv.slice(2);
if (dataDir === undefined || swaps === undefined) throw new Error('usage: cleaner-child.ts <data dir> <swaps>');
const afterSwap = (n: number): void => {
  if (n === Number(swaps)) process.kill(process.pid, 'SIGKILL');
};
const storage = await Storage.open(dataDir, { ...LONG_CLEANING_OPTIONS, cleaner: { ...LONG_CLEANING_OPTIONS.cleaner, afterSwap } });
await storage.cleaner!.cleanOnce(Date.now());
await storage.close();
