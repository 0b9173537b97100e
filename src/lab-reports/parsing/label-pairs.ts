/**
 * Label and value pairs on a report's lines: `Label: value` in a cell or across two, a bordered
 * table's label and value cells, a label run into its value, a label alone over its value on the
 * next line, and what aligned label and value columns give (label-columns.ts).
 */
import { headerColumns } from './columns';
import { parseDate } from './dates';
import { headedBlockPairs } from './headed-blocks';
import { datedLabelField, labelField, type Field } from './labels';
import { BLOCK_GAP_LINES, COLUMN_ALIGN_LINES, ocrRead, type Cell, type Line } from './layout';

/** `Label:` inside a cell: the label words are up to four words before a colon (a slash between two languages' halves no word: `Adı Soyadı / Full name:`). */
const INLINE = /((?:(?:\/\s)?[\p{L}.'/#()[\]]+\s?){1,4}?)\s*:\s*/gu;

export interface Pair {
  field: Field;
  value: string;
  /** The value was read from the next line (a label alone over its value). */
  below?: boolean;
  /** OCR confidence of the value's words, when they are not on the label's line. */
  confidence?: number;
}

/** Mean OCR confidence of a cell's words (1 for a text layer). */
function cellConfidence(cell: Cell): number {
  const scores = cell.words.map((w) => w.confidence ?? 1);
  return scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : 1;
}

/** A cell printed as `Label: value`, whether or not the label is a known one (`NHS No: 730 453 8299`, `Lab #: 25C-832509`). */
const LABEL_SHAPED = /^\p{L}[\p{L} .'/#()[\]-]{0,30}:\s*\S/u;

/** Whether a cell reads as metadata: a known label, a labelled value, or any `Label: value`. */
export function metadataShaped(text: string): boolean {
  return metadataCellKind(text) !== null || LABEL_SHAPED.test(text);
}

/** Whether a cell is a bare label (`DATE OF BIRTH`), a labelled value (`DOB: 1/2/1980`), or neither. */
export function metadataCellKind(text: string): 'label' | 'labelled' | null {
  if (labelField(text) !== null) return 'label';
  // (No colon, no inline label: the pattern is costly to try at every position of a long text.)
  return text.includes(':') && [...text.matchAll(INLINE)].some((m) => labelField(m[1]) !== null) ? 'labelled' : null;
}

/**
 * A value cell under a label that reads as a label itself: the two lines are rows of labels, not
 * labels over values. A status is a value (`Final` under `Report Status`, though `Final` alone
 * labels a report's date elsewhere).
 */
function readsAsLabel(value: string, label: string): boolean {
  return metadataCellKind(value) !== null && !/\bstatus$/i.test(label.trim());
}

export const DATE_FIELDS: (Field | null)[] = ['dob', 'collected', 'reported'];
export const hasDate = (text: string) => (parseDate(text, 'month_first') ?? parseDate(text, 'day_first')) !== null;

/** Whether a value begins with a date (`2025/09/06 17:44`, `6 Sep 2025`), not merely holds one. */
export function startsWithDate(text: string): boolean {
  // A time before the date (`10:48 23/02/2025`, as Vietnamese reports print it) is the date's.
  const t = text.trim().replace(/^\d{1,2}:\d{2}(:\d{2})?\s+(?=\d)/, '');
  return /^(\d|\p{L}{3,9}\.?\s+\d)/u.test(t) && hasDate(t.split(/\s+/).slice(0, 3).join(' '));
}

/** The field of an inline label (`Label: value`), read with the date that follows it when it names none alone (datedLabelField). */
function inlineField(text: string, hit: RegExpMatchArray): Field | null {
  const field = labelField(hit[1]);
  if (field !== null) return field;
  return startsWithDate(text.slice((hit.index ?? 0) + hit[0].length)) ? datedLabelField(hit[1]) : null;
}

/** What a line's neighbours say of it (label-grid.ts): pairs from aligned label columns, and the pairs of a grid's row of labels, which are its only ones. */
export interface LineContext {
  aligned: Map<Line, Pair[]>;
  gridRows: Map<Line, Pair[]>;
}

/**
 * A line's pairs, with those its neighbours give (label-grid.ts) for fields it has no value of; a
 * grid's row of labels has only the pairs of the values under it (read on its own, a label beside
 * a label no list knows would take that label for its value).
 */
export function pairsOf(line: Line, next: Line | undefined, context: LineContext): Pair[] {
  const row = context.gridRows.get(line);
  if (row) return row;
  const own = linePairs(line, next);
  const more = (context.aligned.get(line) ?? []).filter((p) => !own.some((o) => o.field === p.field && o.value));
  return [...own, ...more];
}

/**
 * A colon printed apart from its label, in a column of its own (`Name   :   DOE, JANE`) or at the
 * head of the value's cell (`Name   : DOE, JANE`), belongs to the label: read as `Name: DOE, JANE`,
 * never as a value of its own.
 */
function withColonsOnLabels(line: Line): Line {
  if (!line.cells.some((cell, index) => index > 0 && /^\s*[:\uff1a]/.test(cell.text))) return line;
  const cells: Line['cells'] = [];
  for (const cell of line.cells) {
    const rest = cell.text.replace(/^\s*[:\uff1a]\s*/, '');
    const previous = cells[cells.length - 1];
    if (!previous || rest === cell.text) cells.push(cell);
    else {
      cells[cells.length - 1] = { ...previous, text: `${previous.text.trimEnd()}:` };
      if (rest) cells.push({ ...cell, text: rest });
    }
  }
  return { ...line, cells };
}

/** A line's label and value pairs, with the names printed first in the blocks it heads (headed-blocks.ts) for fields it has no value of. */
export function linePairs(line: Line, next: Line | undefined): Pair[] {
  const own = labelledPairs(line, next);
  const headed = headedBlockPairs(line, next)
    .filter((h) => !own.some((o) => o.field === h.field && o.value))
    .map(({ field, value, cell }) => ({ field, value, below: true, confidence: cellConfidence(cell) }));
  return [...own, ...headed];
}

function labelledPairs(printed: Line, next: Line | undefined): Pair[] {
  const line = withColonsOnLabels(printed);
  const pairs: Pair[] = [];
  /** Cells read: a label's, or the value of a label ending the cell before. */
  const read = new Set<number>();
  // Labels with colons, value after them in the same cell or the next cell.
  line.cells.forEach((cell, index) => {
    const hits = cell.text.includes(':') ? [...cell.text.matchAll(INLINE)].filter((m) => inlineField(cell.text, m) !== null) : [];
    if (hits.length) read.add(index);
    hits.forEach((hit, i) => {
      const start = (hit.index ?? 0) + hit[0].length;
      const end = i + 1 < hits.length ? hits[i + 1].index : cell.text.length;
      let value = cell.text.slice(start, end).trim();
      if (!value && i === hits.length - 1 && line.cells[index + 1] && labelField(line.cells[index + 1].text.split(':')[0]) === null) {
        value = line.cells[index + 1].text.trim();
        read.add(index + 1);
      }
      // `Surname, first name: DOE, JANE`: the comma kept the surname out of the label's words.
      const compound = /\b(name|surname|last name|family name)\s*[,/]\s*$/i.test(cell.text.slice(0, hit.index));
      const field = inlineField(cell.text, hit) as Field;
      pairs.push({ field: field === 'first' && compound ? 'name' : field, value });
    });
  });
  if (pairs.length) {
    // A cell of the same row whose label OCR read without its colon (`DATE OF BIRTH 05/10/2001`
    // beside `PATIENT NAME: …`): a label of two words or more run into its value, on an OCR'd line.
    if (ocrRead(line)) {
      line.cells.forEach((cell, index) => {
        if (read.has(index) || cell.text.includes(':')) return;
        const pair = runIn(cell.text);
        if (pair && !pairs.some((p) => p.field === pair.field)) pairs.push(pair);
      });
    }
    return pairs;
  }
  // A word that says a report's date only beside a date (`Uitslag / Report`) says it beside the date cell after it.
  const labels = line.cells.map((cell, i) => {
    const after = line.cells[i + 1];
    return labelField(cell.text) ?? (after && startsWithDate(after.text) ? datedLabelField(cell.text) : null);
  });
  // Label and value cells side by side without colons (a bordered table): label, value, label, value.
  // (It may begin with a label of no field read, `T.C. Kimlik No   …   Hekim / Physician   …`, when another pair is one.)
  if (labels[0] !== null && line.cells.length >= 2) {
    const grid: Pair[] = [];
    for (let i = 0; i + 1 < line.cells.length; i += 2) {
      if (labels[i] === null || labels[i + 1] !== null) break;
      grid.push({ field: labels[i] as Field, value: line.cells[i + 1].text.trim() });
    }
    // Two pairs at least, or one label of several words alone with its value: one word beside
    // another cell may be a label beside anything (a heading).
    const alone = grid.length === 1 && line.cells.length === 2 && /\s/.test(line.cells[0].text.trim()) && labels[0] !== 'other';
    const read = labels[0] !== 'other' || grid.some((pair) => pair.field !== 'other');
    if ((grid.length >= 2 || alone) && read && grid.length * 2 >= line.cells.length - 1) return grid;
  }
  // A bordered grid whose labels fill their boxes: a label and its value read as one cell
  // (`Muestra / Specimen 25-914962   Médico / Physician Dr. Leila Haddad`), label and value cells
  // beside them; every cell of the row is one or the other.
  const gridPairs = gridRow(line, labels);
  if (gridPairs.length) return gridPairs;
  // A label of two words or more run into its value without a colon (`Ordering Provider Jane Roe MD`);
  // a cell that is a label whole (`Birth Date (Age)`) is none.
  // (A time's colon, `6:53 AM`, is no label's.)
  if (line.cells.length <= 2 && !LABEL_COLON.test(line.text) && labels[0] === null) {
    const words = line.cells[0].text.split(/\s+/);
    for (let n = Math.min(4, words.length - 1); n >= 2; n--) {
      const field = labelField(words.slice(0, n).join(' '));
      if (field !== null && field !== 'other') return [{ field, value: words.slice(n).join(' ') }];
    }
  }
  // A label alone on its line with its value alone under it, on the next line (a sidebar, a
  // stacked block): the value is no label itself (nor `Label: value`) and no table header. A word that says a report's
  // date only beside a date (`Final`, `Report`) says it over one (datedLabelField).
  const cell = line.cells[0];
  const below = next ? next.cells.filter((c) => c.x0 < cell.x1 + 4 && cell.x0 < c.x1 + 4) : [];
  if (line.cells.length === 1 && labels[0] === null && below.length === 1 && startsWithDate(below[0].text)) labels[0] = datedLabelField(cell.text);
  if (next && line.cells.length === 1 && labels[0] !== null && labels[0] !== 'other' && next.y - line.y <= line.height * BLOCK_GAP_LINES) {
    // A date's label over no date (`FINAL REPORT` over a heading) is no label over its value.
    const dateless = DATE_FIELDS.includes(labels[0]) && !hasDate(below[0]?.text ?? '');
    if (below.length === 1 && !metadataShaped(below[0].text) && !headerColumns(next) && !dateless) {
      return [{ field: labels[0], value: below[0].text.trim(), below: true, confidence: cellConfidence(below[0]) }];
    }
  }
  // A row of bare labels with the values printed under them (headings over labelled lines are none: `PATIENT   PARENT / GUARDIAN` over `Name: …`).
  if (next && labels.filter((l) => l !== null).length >= 2 && labels.every((l) => l !== null)) {
    const over = (value: Cell) => line.cells.find((cell) => value.x0 < cell.x1 + 4 && cell.x0 < value.x1 + 4)?.text ?? '';
    if (next.cells.some((c) => readsAsLabel(c.text, over(c)))) return [];
    line.cells.forEach((cell, i) => {
      const below = next.cells.find((c) => c.x0 < cell.x1 + 4 && cell.x0 < c.x1 + 4);
      if (below) pairs.push({ field: labels[i] as Field, value: below.text.trim(), below: true, confidence: cellConfidence(below) });
    });
    return pairs;
  }
  return next && next.y - line.y <= line.height * BLOCK_GAP_LINES ? labelsOverValueColumns(line, next) : [];
}

/** A label of two words or more, with no colon, run into its value in one cell (`Tomada / Collected 12/22/2025 10:34`). */
function runIn(text: string): Pair | null {
  const words = text.trim().split(/\s+/);
  for (let n = Math.min(4, words.length - 1); n >= 2; n--) {
    const label = words.slice(0, n).join(' ');
    const field = label.includes(':') ? null : labelField(label);
    if (field !== null && field !== 'other') return { field, value: words.slice(n).join(' ') };
  }
  return null;
}

/** A row of two cells or more, each a label run into its value or a label cell and the value cell after it; one run-in at least. */
function gridRow(line: Line, labels: (Field | null)[]): Pair[] {
  if (line.cells.length < 2) return [];
  const pairs: Pair[] = [];
  let ranIn = false;
  for (let i = 0; i < line.cells.length; i++) {
    const field = labels[i];
    if (field !== null && i + 1 < line.cells.length && labels[i + 1] === null) {
      if (field !== 'other') pairs.push({ field, value: line.cells[i + 1].text.trim() });
      i += 1;
      continue;
    }
    const pair = runIn(line.cells[i].text);
    // (A `Label: value` cell among them is one too, of a field read or not: `Source: Sidlaw View Health Centre`.)
    if (!pair && LABEL_COLON_VALUE.test(line.cells[i].text.trim())) continue;
    if (!pair) return [];
    pairs.push(pair);
    ranIn = true;
  }
  return ranIn ? pairs : [];
}

/** A colon that ends a label: not one between a time's digits. */
const LABEL_COLON = /(?<!\d):|:(?!\d)/;
/** A cell of a label of a few words, a colon, and its value. */
const LABEL_COLON_VALUE = /^\p{L}[\p{L} .'/#()-]{0,30}:\s*\S/u;

/**
 * A row of labels, each alone in its column, over a row of values in the same columns (a label
 * line, the value on the line below, left edges aligned), where the row also holds labels no list
 * knows or two labels set so close they read as one cell: the columns are the value line's cells,
 * each from its left edge to the next one's, and the label line's words are parted at those edges.
 * Every column must start with a label's word at its value's edge and hold no digits (a row of
 * values is no row of labels); two known labels at least make it a row of labels.
 */
function labelsOverValueColumns(line: Line, next: Line): Pair[] {
  const row = labelRow(line, next);
  if (row === null || row.filter((c) => c.field !== null).length < 2) return [];
  return rowPairs(row);
}

/** A row of labels over a row of values, by the value line's columns: each column's label field (null for a label no list knows) and value cell; null when the two lines are no such rows. */
export function labelRow(line: Line, next: Line): { field: Field | null; value: Cell }[] | null {
  if (next.cells.length < 2 || headerColumns(line) || headerColumns(next)) return null;
  const tolerance = line.height * COLUMN_ALIGN_LINES;
  const words = line.cells.flatMap((cell) => (cell.words.length ? cell.words.map((w) => ({ text: w.text, x0: w.x })) : [{ text: cell.text, x0: cell.x0 }]));
  if (words[0].x0 < next.cells[0].x0 - tolerance) return null;
  const columns = next.cells.map((value, i) => {
    const end = next.cells[i + 1]?.x0 ?? Infinity;
    const label = words.filter((w) => w.x0 >= value.x0 - tolerance && w.x0 < end - tolerance);
    return { value, label, text: label.map((w) => w.text).join(' ') };
  });
  if (columns.some(({ value, label, text }) => !label.length || Math.abs(label[0].x0 - value.x0) > tolerance || /\d/.test(text) || text.includes(':')))
    return null;
  if (columns.some((c) => readsAsLabel(c.value.text, c.text))) return null;
  return columns.map((column) => ({ field: labelField(column.text), value: column.value }));
}

/** The pairs of a row of labels over values, labels no list knows and `other` ones left out. */
export function rowPairs(row: { field: Field | null; value: Cell }[]): Pair[] {
  return row
    .filter((c) => c.field !== null && c.field !== 'other')
    .map((c) => ({ field: c.field as Field, value: c.value.text.trim(), below: true, confidence: cellConfidence(c.value) }));
}
