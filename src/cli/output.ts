const MAX_CELL = 60;

/**
 * Rows for a person on a terminal (an aligned table of `columns`, "(none)" when empty), and for a
 * program otherwise (one JSON object a line, every field, nothing when empty).
 */
export function printRows(out: NodeJS.WriteStream, rows: Record<string, unknown>[], columns: string[]): void {
  if (!out.isTTY) {
    for (const row of rows) out.write(`${JSON.stringify(row)}\n`);
    return;
  }
  if (rows.length === 0) {
    out.write('(none)\n');
    return;
  }
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  out.write(`${line(columns)}\n${cells.map(line).join('\n')}\n`);
}

/** One value as the user should see it on a terminal: JSON for objects, one line, cut to fit. */
export function cell(value: unknown, max = MAX_CELL): string {
  if (value === null || value === undefined) return '';
  const text = (typeof value === 'string' ? value : JSON.stringify(value)).replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One object: JSON on a line for programs; `key: value` lines for people. */
export function printRecord(out: NodeJS.WriteStream, record: Record<string, unknown>): void {
  if (!out.isTTY) {
    out.write(`${JSON.stringify(record)}\n`);
    return;
  }
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [key, value] of Object.entries(record)) out.write(`${`${key}:`.padEnd(width + 2)}${cell(value, 200)}\n`);
}
