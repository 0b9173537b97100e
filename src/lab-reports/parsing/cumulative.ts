import { type Column, headerRole } from './columns';
import { dayOrderShown, parseDate } from './dates';
import type { Line } from './layout';

/**
 * A cumulative report's table (Meditech and other hospital systems): each result row prints one
 * value per draw under a row of the draws' dates, today's beside earlier ones, newest first or
 * last. The newest draw's column is the report's result; the others are previous results. Used by
 * ./parse.ts.
 */

/**
 * The columns a row of draw dates gives (`Date | 2025-Jan-28 | 2025-Mar-03 | 2025-Apr-15`): the
 * test's name before the first date, the newest draw's as the result, the others as previous
 * results. Null for a line that is not two or more dates (after an optional label).
 */
export function drawDateColumns(line: Line): Column[] | null {
  const cells = line.cells;
  const draws = DRAW_LABEL.test(cells[0]?.text.trim() ?? '') ? cells.slice(1) : cells;
  if (draws.length < 2 || !draws.every((cell) => DATE_CELL.test(cell.text.trim()))) return null;
  const texts = draws.map((cell) => withFullYear(cell.text.trim()));
  const { order } = dayOrderShown(texts);
  const dates = texts.map((text) => parseDate(text, order));
  if (dates.some((date) => date === null)) return null;
  const newest = dates.reduce((best, date, i) => (date! > dates[best]! ? i : best), 0);
  return [
    { role: 'name', x0: 0, x1: Math.max(0, draws[0].x0 - 1) },
    ...draws.map((cell, i): Column => ({ role: i === newest ? 'result' : 'previous', x0: cell.x0, x1: cell.x1 })),
  ];
}

/**
 * A line under the draw dates that says more of each draw (`Time | 09:26 | 10:59 | 08:23 |
 * Reference | Units`, `Spec # | 0405:C61671R | …`): no result row; the headings it prints after the
 * draws' columns are the table's other columns. Null for any other line.
 */
export function headingsAfterDraws(line: Line, draws: Column[]): Column[] | null {
  if (!DRAW_DETAIL_LABEL.test(line.cells[0]?.text.trim() ?? '')) return null;
  const end = draws[draws.length - 1].x1;
  return line.cells.flatMap((cell) => {
    const role = cell.x0 > end ? headerRole(cell.text) : null;
    return role ? [{ role, x0: cell.x0, x1: cell.x1 }] : [];
  });
}

/** A date with its month's name and a two-digit year (`05-Nov-24`) with the year's century, as draws of this century or the last are. */
function withFullYear(text: string): string {
  return text.replace(/^(\d{1,2}[-/. ][A-Za-z]{3,9}\.?[-/. ])(\d{2})\b/, (_, dayMonth: string, yy: string) => `${dayMonth}${Number(yy) > 50 ? 19 : 20}${yy}`);
}

/** A label before the draw dates. */
const DRAW_LABEL = /^(date|dates|collected|coll\.? date|collection date|date collected|draw date|date\/time)$/i;
/** A cell that is a date, and perhaps its time, and nothing else (`2025-Apr-15`, `04/15/2025 08:23`, `15 Apr 2025`, `15APR2025`). */
const DATE_CELL =
  /^(\d{1,4}[-/.][A-Za-z0-9]{1,3}[-/.]\d{2,4}|\d{1,2} [A-Za-z]{3,9}\.? \d{4}|[A-Za-z]{3,9}\.? \d{1,2},? \d{4}|\d{1,2}[A-Z]{3}\d{4})( \d{1,2}:\d{2})?$/;
/** Labels of the lines that say more of each draw: its time, specimen or accession number. */
const DRAW_DETAIL_LABEL = /^(time|times|spec\.?\s*#?|spec no\.?|specimen|specimen #|accession|accession #|acc\.?\s*#?|collected|coll\.? time)$/i;
