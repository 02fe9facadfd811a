/** How measurements are repeated on a shared, noisy machine. */
import { readFileSync } from 'node:fs';

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

/** CPU seconds (user + system) a process has used, from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
