import { type Column, headerRole } from './columns';
import { DATE_CELL, dayOrderShown, parseDate } from './dates';
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
  if (draws.length < 2 || !draws.every((cell) => DATE_CELL.test(cell.text.trim()) || MISREAD_DATE_CELL.test(cell.text.trim()))) return null;
  const texts = draws.map((cell) => withFullYear(cell.text.trim()));
  const { order } = dayOrderShown(texts);
  const dates = texts.map((text) => parseDate(text, order));
  const newest = newestDraw(dates);
  if (newest === null) return null;
  return [
    { role: 'name', x0: 0, x1: Math.max(0, draws[0].x0 - 1) },
    ...draws.map((cell, i): Column => ({ role: i === newest ? 'result' : 'previous', x0: cell.x0, x1: cell.x1 })),
  ];
}

/**
 * The index of the newest draw. One date OCR misread (`2025-an-09`, its `J` lost) is placed by
 * the others: the draws print in date order, so where the dates read rise (or fall) towards it,
 * at the end, it is the newest. Null when more are unread, or the one unread cannot be placed.
 */
function newestDraw(dates: (string | null)[]): number | null {
  const unread = dates.flatMap((date, i) => (date === null ? [i] : []));
  const read = dates.filter((date): date is string => date !== null);
  const newestRead = dates.indexOf([...read].sort().at(-1) ?? null);
  if (unread.length === 0) return newestRead;
  if (unread.length > 1 || read.length < 2) return null;
  const rising = read.every((date, i) => i === 0 || date > read[i - 1]);
  const falling = read.every((date, i) => i === 0 || date < read[i - 1]);
  if (rising && unread[0] === dates.length - 1) return unread[0];
  if (falling && unread[0] === 0) return 0;
  return rising || falling ? newestRead : null;
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

/** A date OCR misread in its month (`2025-an-09`, `01-0ct-24`): digits, a separator, a few characters, a separator, digits. */
const MISREAD_DATE_CELL = /^\d{1,4}[-/.][^\s\d]{0,9}[-/.]\d{2,4}$/;
/** A label before the draw dates. */
const DRAW_LABEL = /^(date|dates|collected|coll\.? date|collection date|date collected|draw date|date\/time)$/i;
/** Labels of the lines that say more of each draw: its time, specimen or accession number. */
const DRAW_DETAIL_LABEL = /^(time|times|spec\.?\s*#?|spec no\.?|specimen|specimen #|accession|accession #|acc\.?\s*#?|collected|coll\.? time)$/i;
