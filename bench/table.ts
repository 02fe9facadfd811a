/** The one table `npm run bench` prints: a row per figure, beside the reference measured in the same run. */

export interface Row {
  scenario: string;
  brook: string;
  reference: string;
  ratio: string;
}

const COLUMNS = ['scenario', 'brook', 'reference', 'ratio'] as const;

/** A number with thousands separators and a fixed number of decimals. */
export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** brook / reference, with enough digits to tell small ratios apart. */
export function ratio(brook: number, reference: number): string {
  const r = brook / reference;
  if (!Number.isFinite(r)) return '-';
  return r >= 10 ? r.toFixed(1) : r >= 0.1 ? r.toFixed(2) : r.toPrecision(2);
}

/** A row whose ratio is brook / reference; `referenceNote` names what the reference is. */
export function compared(scenario: string, brook: number, reference: number, referenceNote = '', digits = 0): Row {
  const note = referenceNote === '' ? '' : ` (${referenceNote})`;
  return { scenario, brook: fmt(brook, digits), reference: `${fmt(reference, digits)}${note}`, ratio: ratio(brook, reference) };
}

/** Markdown, so that the output can go into the README as it is. */
export function printTable(rows: readonly Row[]): void {
  const widths = COLUMNS.map((k) => Math.max(k.length, ...rows.map((r) => r[k].length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(COLUMNS));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(COLUMNS.map((k) => r[k])));
}
