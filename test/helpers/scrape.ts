/** Scrapes a metrics endpoint over HTTP the way Prometheus does, into sample → value. */
import assert from 'node:assert/strict';

export type Samples = ReadonlyMap<string, number>;

/** Samples by their name with labels, e.g. `brook_request_duration_seconds_count{api="Produce"}`. */
export async function scrape(port: number): Promise<Samples> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** How much each named sample grew from `before` to `after` (absent counts as 0). */
export function growth(before: Samples, after: Samples, names: readonly string[]): Record<string, number> {
  return Object.fromEntries(names.map((n) => [n, (after.get(n) ?? 0) - (before.get(n) ?? 0)]));
}
