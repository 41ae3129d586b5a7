/** Formats a ratio as a percentage with a fixed number of decimals. */
export function percent(ratio: number, decimals = 4): string {
  return `${(ratio * 100).toFixed(decimals)}%`;
}

/** Renders rows as left-aligned text columns separated by two spaces. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return (
    [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n'
  );
}

/**
 * Renders rows as columns padded to their widest cell, separated by two spaces, with no rule under
 * the header; the columns named in `rightAligned` (numbers) are padded on the left.
 */
export function alignedColumns(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  rightAligned: ReadonlySet<number>,
): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i]!.length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** Compact counts: 1234567 -> "1.23M". */
export function compact(count: number): string {
  if (count >= 1e9) return `${(count / 1e9).toFixed(2)}G`;
  if (count >= 1e6) return `${(count / 1e6).toFixed(2)}M`;
  if (count >= 1e3) return `${(count / 1e3).toFixed(1)}k`;
  return String(Math.round(count));
}
