/**
 * Opens a data directory and cleans its compacted partition once, SIGKILLing itself right after
 * the cleaning's swap number <swaps>, or, given a step, right after that step of that swap;
 * exits 0 if the cleaning ends first.
 * Usage: node --import tsx cleaner-child.ts <data dir> <swaps> [<swap step>]
 */
import { Storage } from '../../src/log/storage.js';
import type { SwapStep } from '../../src/log/cleaner/swap-files.js';
import { LONG_CLEANING_OPTIONS } from './compacted-log.js';

const [dataDir, swaps, step] = process.argv.slice(2);
if (dataDir === undefined || swaps === undefined) throw new Error('usage: cleaner-child.ts <data dir> <swaps> [<swap step>]');
// Swaps begun: the one under way is numbered one more than those done.
let swapsDone = 0;
const afterSwap = (n: number): void => {
  swapsDone = n;
  if (step === undefined && n === Number(swaps)) process.kill(process.pid, 'SIGKILL');
};
const atSwapStep = (at: SwapStep): void => {
  if (at === step && swapsDone + 1 === Number(swaps)) process.kill(process.pid, 'SIGKILL');
};
const storage = await Storage.open(dataDir, { ...LONG_CLEANING_OPTIONS, cleaner: { ...LONG_CLEANING_OPTIONS.cleaner, afterSwap, atSwapStep } });
await storage.cleaner!.cleanOnce(Date.now());
await storage.close();
