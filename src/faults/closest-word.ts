/** "Did you mean": the known word a mistyped one is nearest to, when it is near enough to be meant. */

/** The choice within two edits of `word` (case aside), the nearest first; undefined if none is. */
export function closestWord(word: string, choices: readonly string[]): string | undefined {
  let best: { choice: string; distance: number } | undefined;
  for (const choice of choices) {
    const distance = editDistance(word.toLowerCase(), choice.toLowerCase());
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { choice, distance };
  }
  return best?.choice;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}
