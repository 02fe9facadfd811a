/** A buffer size that holds `needed` bytes: `current` doubled (from `first` at least) until it does, at most `largest`. */
export function grownSize(current: number, needed: number, first: number, largest: number): number {
  let size = Math.max(current * 2, first);
  while (size < needed) size *= 2;
  return Math.min(size, largest);
}
