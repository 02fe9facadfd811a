/** What the console's JSON API takes from a request (numbers, pages, searches), and its answers other than 200. */

/** An answer other than 200: its HTTP status and a sentence. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A whole number from the query or the body, within [min, max], or `fallback` when absent. */
export function wholeNumber(text: string | null | undefined, name: string, min: number, max: number, fallback?: number): number {
  if (text === null || text === undefined || text === '') {
    if (fallback === undefined) throw new ApiError(400, `${name} is required`);
    return fallback;
  }
  const n = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) throw new ApiError(400, `${name} must be a whole number from ${min} to ${max}`);
  return n;
}

/** The part of `items` a page shows: `offset` and `limit` from the query (at most MAX_PAGE). */
export function page<T>(items: readonly T[], query: URLSearchParams): { total: number; offset: number; items: T[] } {
  const offset = wholeNumber(query.get('offset'), 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
  const limit = wholeNumber(query.get('limit'), 'limit', 1, MAX_PAGE, DEFAULT_PAGE);
  return { total: items.length, offset, items: items.slice(offset, offset + limit) };
}

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

/** The items whose name holds the query's `q`, sorted by name. */
export function matching<T>(items: readonly T[], nameOf: (item: T) => string, query: URLSearchParams): T[] {
  const q = query.get('q') ?? '';
  return items.filter((item) => nameOf(item).includes(q)).sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1));
}
