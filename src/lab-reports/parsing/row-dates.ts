import { type Column, columnOf, headerColumns } from './columns';
import { parseDate } from './dates';
import type { Line } from './layout';

/**
 * The collection date a table prints on every row (an emergency department's list: `Collected
 * Date/Time` beside each result), when nothing labels the report's own: the rows' day, if all of
 * them fall on one (the urine collected later than the blood, on the same day). Rows of two days
 * give none: which of them the report is "collected" on, the page does not say.
 */
export function rowsCollectionDate(lines: Line[]): { text: string; line: Line } | null {
  const found: { text: string; day: string; line: Line }[] = [];
  let table: { columns: Column[]; at: number } | null = null;
  for (const line of lines) {
    const header = headerColumns(line);
    if (header) {
      const at = header.findIndex((column) => column.role === 'collected');
      table = at >= 0 ? { columns: header, at } : null;
      continue;
    }
    if (!table) continue;
    const { columns, at } = table;
    for (const cell of line.cells) {
      if (columnOf(cell, columns) !== at) continue;
      const day = cell.text.trim().split(/\s+/)[0];
      if ((parseDate(day, 'month_first') ?? parseDate(day, 'day_first')) !== null) found.push({ text: cell.text.trim(), day, line });
    }
  }
  if (found.length < 2 || found.some((f) => f.day !== found[0].day)) return null;
  return { text: found[0].text, line: found[0].line };
}
