/**
 * A table of the bench's figures as text: each column as wide as its widest cell, the first `leftColumns` aligned left
 * (names), the rest right (figures), a rule under the header.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], leftColumns = 1): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column < leftColumns ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}
