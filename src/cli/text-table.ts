/** The inspection commands' tables: columns padded to their widest cell, two spaces apart. */
export function textTable(headings: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headings.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [headings, ...rows]
    .map(
      (cells) =>
        `${cells
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
