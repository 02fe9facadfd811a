/** How measurements are repeated on a shared, noisy machine. */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Runs every contender once per round, in turn, so that all of them see the same machine
 * weather; returns each contender's results, round by round. Figures are then taken from the
 * least disturbed round of each (`highest` rate, lowest time).
 */
export async function alternating<T>(rounds: number, contenders: readonly ((round: number) => Promise<T>)[]): Promise<T[][]> {
  const results: T[][] = contenders.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, run] of contenders.entries()) results[i]!.push(await run(round));
  }
  return results;
}

export const highest = (values: readonly number[]): number => Math.max(...values);
export const lowest = (values: readonly number[]): number => Math.min(...values);

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The value `p` percent of `values` lie below. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** What `call` gives, its time in µs pushed onto `into`. */
export async function timed<T>(into: number[], call: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await call();
  into.push((performance.now() - start) * 1000);
  return result;
}

/**
 * CPU seconds a process's threads have run, from each thread's /proc schedstat, in nanoseconds:
 * /proc/PID/stat counts in 10 ms ticks, too coarse for a few thousand batches. Only threads still
 * running count, as they do in a Node process, whose threads live as long as it does.
 */
export function cpuSeconds(pid: number): number {
  let ns = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1e9;
}
