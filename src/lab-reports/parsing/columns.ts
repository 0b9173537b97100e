import { DATE_CELL } from './dates';
import type { Cell, Line } from './layout';

/** `collected`: each row's own collection time, no result (row-dates.ts reads the report's collection date from it). */
export type ColumnRole = 'name' | 'result' | 'flag' | 'units' | 'reference' | 'previous' | 'collected' | 'other';

export interface Column {
  role: ColumnRole;
  x0: number;
  x1: number;
}

/** A heading of each row's collection time. */
const COLLECTED_COLUMN = /^(collected|collection|collected date|date collected|collection time|collected on|coll\.? date|coll\.? time|date\/time)$/i;

/** Column headings, in English and in Spanish, Polish and Greek (other languages' print beside the English: `Risultato / Result`). */
const HEADER_WORDS: [RegExp, ColumnRole][] = [
  [
    /^(tests?|tests? ordered|test name|test description|analyte|analytes|component|components|investigation|analysis|parameter|description|examination|determination|assay|name|result name|lab name|estudio|examen|prueba|badanie|εξέταση|εξεταση)$/i,
    'name',
  ],
  [
    /^(results?|value|your result|your value|current result|result value|observed value|current|in range|out of range|normal|patient result|this visit|this sample|this specimen|latest|latest result|resultado|wynik|αποτέλεσμα|αποτελεσμα)$/i,
    'result',
  ],
  [/^(flags?|abnormal|abn|status|ind|indicator|a\/n|h\/l|alert)$/i, 'flag'],
  [/^(units?|uom|unit of measure|unidades|jednostka|jednostki|μονάδες|μοναδες)$/i, 'units'],
  [
    /^(reference|ref|reference ranges?|reference intervals?|ref\.? ranges?|ref\.? intervals?|normal ranges?|range|reference values?|biological reference interval|normal values?|expected|expected values?|standard range|healthy range|valores de referencia|intervalo de referencia|zakres ref|zakres referencyjny|όρια αναφοράς|ορια αναφορας)$/i,
    'reference',
  ],
  [/^(previous|prior|last result|previous results?|prior results?|previous values?|last value|historical|previous \(.*\)|prior \(.*\))$/i, 'previous'],
  [/^(lab|site|code|method|comment|comments|notes|loinc)$/i, 'other'],
  // A row's own collection time, as an emergency department's list prints it (headerColumns says when it heads a column).
  [COLLECTED_COLUMN, 'collected'],
];

/** The column a heading names (`Result`, `Units`, a bilingual `Résultat / Result`), if any. */
export function headerRole(text: string): ColumnRole | null {
  const t = text.trim().replace(/[:.]$/, '');
  for (const [re, role] of HEADER_WORDS) if (re.test(t)) return role;
  // A heading with a note in brackets (`Ref Range (age-specific)`): the heading's.
  const noted = /^(.+?)\s*\([^)]*\)$/.exec(t);
  if (noted) for (const [re, role] of HEADER_WORDS) if (re.test(noted[1])) return role;
  const halves = t.split(/\s*\/\s*/);
  if (halves.length === 2 && halves.every((h) => h.length > 1)) {
    const roles = halves.map((h) => HEADER_WORDS.find(([re]) => re.test(h.replace(/[:.]$/, '')))?.[1]);
    // A result column whose values carry their flag (`Result / Flag`, `Value/Flag`): the result's.
    if (roles.includes('result') && roles.includes('flag')) return 'result';
    // A heading in two languages (`Résultat / Result`, `Réf. / Ref.`): what one half names, when the other names nothing or the same.
    const named = roles.filter((role) => role !== undefined);
    if (named.length === 1 || (named.length === 2 && named[0] === named[1])) return named[0];
  }
  return null;
}

/**
 * A table header row: every cell a column heading, among them a result column and units or a
 * reference interval. Cells run together by a narrow gap are split back into headings.
 */
export function headerColumns(line: Line): Column[] | null {
  const columns: Column[] = [];
  for (const [i, cell] of line.cells.entries()) {
    // A date among the headings (`Test | 01-Aug-24 | This sample | Units`, a cumulative report)
    // heads that earlier draw's values: previous results, never the result. Only between two
    // headings: a date first or last on the line is a sidebar's value beside the table's header.
    const among = i > 0 && i < line.cells.length - 1;
    const role = headerRole(cell.text) ?? (among && DATE_CELL.test(cell.text.trim()) ? 'previous' : null);
    if (role) {
      columns.push({ role, x0: cell.x0, x1: cell.x1 });
      continue;
    }
    const split = splitHeaderCell(cell);
    if (!split) return null;
    columns.push(...split);
  }
  // One heading set in two cells by a wide gap (`Ref.` `range` in Courier) is one column, so a
  // value spanning both stays whole. Two result columns side by side are a value's two columns.
  for (let i = columns.length - 1; i > 0; i -= 1) {
    const [before, column] = [columns[i - 1], columns[i]];
    if (column.role === before.role && !['result', 'other'].includes(column.role)) columns.splice(i - 1, 2, { ...before, x1: column.x1 });
  }
  // `Normal` and `Abnormal` side by side are a value's two columns (in range, out of range), not a flag column.
  const texts = line.cells.map((cell) => cell.text.trim().toLowerCase());
  if (texts.includes('normal') && texts.includes('abnormal')) {
    for (const column of columns)
      if (column.role === 'flag' && line.cells.some((c) => c.x0 === column.x0 && /^abnormal$/i.test(c.text.trim()))) column.role = 'result';
  }
  // `Normal` beside a result column of its own (no `Abnormal`) heads the normal values: the reference interval.
  if (!texts.includes('abnormal') && columns.filter((c) => c.role === 'result').length > 1) {
    for (const column of columns)
      if (column.role === 'result' && line.cells.some((c) => c.x0 === column.x0 && /^normal$/i.test(c.text.trim()))) column.role = 'reference';
  }
  // A collection label printed in another case than the table's name heading (`COLLECTED` beside
  // `Test`) is a sidebar's label on the header's line, not a column of the table.
  const nameHeading = line.cells.find((cell) => headerRole(cell.text) === 'name')?.text.trim();
  const capitals = (text: string) => text === text.toUpperCase();
  if (nameHeading && line.cells.some((cell) => COLLECTED_COLUMN.test(cell.text.trim()) && capitals(cell.text.trim()) !== capitals(nameHeading))) return null;
  const roles = new Set(columns.map((c) => c.role));
  if (!roles.has('result') || !(roles.has('units') || roles.has('reference')) || columns.length < 3) return null;
  if (!roles.has('name')) columns.unshift({ role: 'name', x0: 0, x1: Math.max(0, columns[0].x0 - 1) });
  return columns;
}

/** `Test Result Units` printed with single spaces: each word or word pair a heading. */
function splitHeaderCell(cell: Cell): Column[] | null {
  const columns: Column[] = [];
  const words = cell.words;
  for (let i = 0; i < words.length;) {
    const pair = i + 1 < words.length ? headerRole(`${words[i].text} ${words[i + 1].text}`) : null;
    if (pair) {
      columns.push({ role: pair, x0: words[i].x, x1: words[i + 1].x + words[i + 1].w });
      i += 2;
      continue;
    }
    const single = headerRole(words[i].text);
    if (!single) return null;
    columns.push({ role: single, x0: words[i].x, x1: words[i].x + words[i].w });
    i += 1;
  }
  return columns;
}

/**
 * The column a cell belongs to: the heading it overlaps most, or else the last heading starting
 * left of it (values are often right-aligned under a shorter heading, names run long).
 */
export function columnOf(cell: { x0: number; x1: number }, columns: Column[]): number {
  let best = -1;
  let bestOverlap = 0;
  columns.forEach((column, i) => {
    const overlap = Math.min(cell.x1, column.x1) - Math.max(cell.x0, column.x0);
    if (overlap > bestOverlap) {
      best = i;
      bestOverlap = overlap;
    }
  });
  if (best >= 0) return best;
  let last = 0;
  columns.forEach((column, i) => {
    if (column.x0 <= cell.x0) last = i;
  });
  return last;
}
