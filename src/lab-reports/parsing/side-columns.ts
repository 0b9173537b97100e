import { headerColumns, type Column } from './columns';
import { lineFromCells, type Cell, type Line } from './layout';
import { median } from './median';
import { DATE_FIELDS, hasDate, metadataCellKind, metadataShaped } from './label-pairs';
import { labelField } from './labels';

/**
 * A side column printed beside the results (a patient panel in a sidebar, a stacked block of
 * `LABEL` over value lines) shares the page's printed lines with the table: its cells join
 * unrelated table rows (`SEX  HDL-C 29 L mg/dL`), so rows gain a label in their name or are taken
 * for metadata and dropped, and its labels are no longer over their values. Such a column is
 * parted from the rest by x-position and read on its own, before the rest (reading order).
 *
 * A column is parted at a vertical gutter that no cell crosses, over a run of consecutive lines,
 * when the band on one side of it:
 * - is one cell wide on its lines (a column of text, not table cells), but for a few (at most 15%)
 *   OCR parted, the pieces close together (a word whose box it set a little apart, a date read in
 *   two pieces),
 * - is mostly metadata: labels with a colon, or bare labels with a value on the band's next line
 *   (at least two of them, and at least 60% of the band's cells counting the values; 30% where
 *   lines of the band alone and of the other side alone interleave, two flows of text, as OCR
 *   misreads some small labels), and
 * - sits beside something that is not metadata itself: the other side has text on at least two
 *   lines of the band's span, less than half of them labelled, by a known label or any `Label:`
 *   (a two-column patient block is read well as it is, label by label).
 * Where OCR garbled the labels (a photo's small bold type), a column of at least six lines whose
 * lines interleave with a table's, the table's header printed beside it, is one too when asked
 * (`byLayout`, for reading it apart: extract.ts).
 * A label beside its value on the same line (a bordered label/value grid) is not a stacked pair,
 * so a grid is never taken apart.
 */
const MIN_LABELS = 2;
const MIN_METADATA_SHARE = 0.6;
/** Where the band's lines and the other side's interleave, OCR may misread some labels: less is asked. */
const MIN_INTERLEAVED_METADATA_SHARE = 0.3;
/** Share of the band's lines OCR may part into two cells or more (a column of text is one cell wide). */
const MAX_MULTI_CELL_SHARE = 0.15;
/** The widest blank, in line heights, between the pieces of a line of the column OCR parted. */
const MAX_PARTED_GAP_LINES = 4;
/** Lines of a side column found by its layout alone (`byLayout`), its labels unread. */
const MIN_LAYOUT_BAND_LINES = 6;
/** Share of such a column's lines OCR may part (a photo's garbled labels part more). */
const MAX_LAYOUT_MULTI_CELL_SHARE = 0.25;

interface Part {
  line: Line;
  left: Cell[];
  right: Cell[];
}

interface Split {
  band: 'left' | 'right';
  start: number;
  end: number;
  gutter: number;
  bandCells: number;
}

/**
 * The page's lines with side columns parted from the rest, each read as its own lines, and the
 * lines of the side columns themselves (`side`): mostly metadata by how they are found, they hold
 * no results (`Schedule` over `TTS 3rd shift, chair 16` is no row named `TTS 3rd shift, chair`).
 */
export function separateSideColumns(lines: Line[]): { lines: Line[]; side: Set<Line> } {
  const pages = new Map<number, Line[]>();
  for (const line of lines) pages.set(line.page, [...(pages.get(line.page) ?? []), line]);
  const side = new Set<Line>();
  return { lines: [...pages.values()].flatMap((page) => separatePage(page, side)), side };
}

/** The side column of one page's lines (sorted top to bottom) with the widest band, if any. */
function bestSplit(lines: Line[], byLayout = false): Split | null {
  let best: Split | null = null;
  for (const gutter of candidateGutters(lines)) {
    for (const split of qualifyingRuns(lines, gutter, byLayout)) if (!best || split.bandCells > best.bandCells) best = split;
  }
  return best;
}

/**
 * Where one page's side column prints, for reading it apart (extract.ts): its side, the gutter's x
 * and the top and bottom of its run of lines, in the lines' units. `byLayout`: found by its layout
 * alone where OCR garbled its labels (bandSplit).
 */
export function sideColumnOf(
  lines: Line[],
  options: { byLayout?: boolean } = {},
): { gutter: number; top: number; bottom: number; band: 'left' | 'right' } | null {
  const split = bestSplit(lines, options.byLayout === true);
  if (!split) return null;
  const run = lines.slice(split.start, split.end + 1);
  const cells = run.flatMap((line) => line.cells);
  const onLeft = (c: (typeof cells)[number]) => (c.x0 + c.x1) / 2 < split.gutter;
  const left = cells.filter(onLeft);
  const right = cells.filter((c) => !onLeft(c));
  // Halfway across the blank between the two sides: the gutter found is the edge of one of them.
  const gutter = left.length && right.length ? (Math.max(...left.map((c) => c.x1)) + Math.min(...right.map((c) => c.x0))) / 2 : split.gutter;
  // Halfway to the lines above and below the run too, so no line is cut: the lines that print on
  // the column's side (a table's row beside it, just under its last line, is not in its way).
  const top = Math.min(...run.map((line) => line.y));
  const bottom = Math.max(...run.map((line) => line.y + line.height));
  const onBandSide = (line: Line) => line.cells.some((c) => (split.band === 'left' ? c.x0 < gutter : c.x1 > gutter));
  const above = lines.slice(0, split.start).reverse().find(onBandSide);
  const below = lines.slice(split.end + 1).find(onBandSide);
  return {
    gutter,
    band: split.band,
    top: above ? Math.max((above.y + above.height + top) / 2, top - run[0].height) : top - run[0].height,
    bottom: below ? Math.min((bottom + below.y) / 2, bottom + run[0].height) : bottom + run[0].height,
  };
}

/** One page's lines with its side column parted (its lines added to `sideLines`). */
function separatePage(lines: Line[], sideLines: Set<Line>): Line[] {
  const best = bestSplit(lines);
  if (!best) return lines;
  const { start, end, gutter, band } = best;
  const parts = lines.slice(start, end + 1).map((line) => partAt(line, gutter) as Part);
  const side = (pick: 'left' | 'right') => {
    const parted = parts.filter((p) => p[pick].length).map((p) => lineFromCells(p[pick], p.line));
    if (pick === band) parted.forEach((line) => sideLines.add(line));
    return parted;
  };
  return [...lines.slice(0, start), ...side('left'), ...side('right'), ...lines.slice(end + 1)];
}

/** Where the right-hand part of some line starts, and where the left-hand part of some line ends. */
function candidateGutters(lines: Line[]): number[] {
  const xs = new Set<number>();
  for (const line of lines) {
    for (let i = 1; i < line.cells.length; i++) {
      xs.add(Math.round(line.cells[i].x0 - 1));
      xs.add(Math.round(line.cells[i - 1].x1 + 1));
    }
  }
  return [...xs];
}

/**
 * A line's cells either side of x, or null when a cell crosses it (by more than a margin: a
 * photographed page slopes) or when x parts a table's header (a table's columns are no side column,
 * however many labelled lines print beside them).
 */
function partAt(line: Line, x: number): Part | null {
  const margin = line.height * 0.5;
  if (line.cells.some((c) => c.x0 < x - margin && c.x1 > x + margin)) return null;
  const header = headerOf(line);
  const leftOfX = (c: { x0: number; x1: number }) => (c.x0 + c.x1) / 2 < x;
  // The table's printed columns: not the name column columns.ts adds at x 0 when none is printed,
  // nor a side column's `Name` label on the header's line, right of the results.
  const result = header?.find((c) => c.role === 'result');
  const printed = header?.filter((c) => c.x0 > 0 && !(c.role === 'name' && result && c.x0 > result.x0)) ?? [];
  if (printed.some(leftOfX) && !printed.every(leftOfX)) return null;
  const left = line.cells.filter(leftOfX);
  return { line, left, right: line.cells.filter((c) => !left.includes(c)) };
}

/** A line's table header columns (columns.ts), found once per line. */
const headers = new WeakMap<Line, Column[] | null>();
function headerOf(line: Line): Column[] | null {
  if (!headers.has(line)) headers.set(line, headerColumns(line));
  return headers.get(line) ?? null;
}

function qualifyingRuns(lines: Line[], gutter: number, byLayout: boolean): Split[] {
  const splits: Split[] = [];
  let run: Part[] = [];
  let runStart = 0;
  const close = () => {
    for (const band of ['left', 'right'] as const) {
      const split = bandSplit(run, band, runStart, gutter, byLayout);
      if (split) splits.push(split);
    }
  };
  lines.forEach((line, i) => {
    const part = partAt(line, gutter);
    if (part) {
      if (!run.length) runStart = i;
      run.push(part);
    } else {
      close();
      run = [];
    }
  });
  close();
  return splits;
}

function bandSplit(run: Part[], band: 'left' | 'right', runStart: number, gutter: number, byLayout: boolean): Split | null {
  const other = band === 'left' ? 'right' : 'left';
  const withBand = run.map((p, i) => ({ p, i })).filter(({ p }) => p[band].length);
  if (withBand.length < MIN_LABELS * 2) return null;
  // A column of text is one cell wide; OCR parts a few of its lines (a word its box set a line
  // apart, a date read in two pieces), a table's columns part every line.
  // OCR's specks (`.`, `;`, a lone letter) are no cells of it.
  const pieces = (p: Part) => p[band].filter((c) => /[\p{L}\p{N}]{2}/u.test(c.text));
  const multiCell = withBand.filter(({ p }) => pieces(p).length > 1);
  if (multiCell.length > withBand.length * (byLayout ? MAX_LAYOUT_MULTI_CELL_SHARE : MAX_MULTI_CELL_SHARE)) return null;
  // Pieces of one text, close together: a cell a column apart (a table's next column) is no piece.
  // (In the line's height or the band's usual one, whichever is more: a line of OCR's specks is low.)
  const usual = median(withBand.map(({ p }) => p.line.height));
  const apart = ({ p }: { p: Part }) => pieces(p).some((c, k, all) => k > 0 && c.x0 - all[k - 1].x1 > Math.max(usual, p.line.height) * MAX_PARTED_GAP_LINES);
  if (multiCell.some(apart)) return null;
  const textOf = (p: Part) => p[band].map((c) => c.text).join(' ');
  const bandText = (p: Part | undefined) => (p ? textOf(p) : undefined);
  let labels = 0;
  let metadataCells = 0;
  withBand.forEach(({ p }, k) => {
    const kind = metadataCellKind(textOf(p));
    const next = bandText(withBand[k + 1]?.p);
    if (kind === 'labelled') {
      labels += 1;
      metadataCells += 1;
    } else if (kind === 'label' && next !== undefined && metadataCellKind(next) === null && !(DATE_FIELDS.includes(labelField(textOf(p))) && !hasDate(next))) {
      // (A date's label over no date is no label over its value: `Data nascita / DOB` over `Nato/a a / Born in`,
      // a label no list knows, in a column of labels with their values beside them.)
      labels += 1;
      metadataCells += 2;
    }
  });
  const [first, last] = [withBand[0].i, withBand[withBand.length - 1].i];
  const span = run.slice(first, last + 1);
  // Lines of the band alone and of the other side alone, interleaved: two flows of text, not one table.
  const interleaved = span.filter((p) => !p[other].length).length >= 2 && span.filter((p) => !p[band].length).length >= 2;
  // `byLayout`: a column of text whose lines interleave with a table's, its header printed beside
  // the column alone, is a side column however few of its labels OCR read (a photo's small bold labels).
  const laidOut =
    byLayout &&
    withBand.length >= MIN_LAYOUT_BAND_LINES &&
    interleaved &&
    run.some((p) => p[other].length && headerColumns(lineFromCells(p[other], p.line)) !== null);
  if (labels < MIN_LABELS && !laidOut) return null;
  // Bare labels of a left band, one under the other, with their values beside them on the same
  // lines: a label/value grid (`Prélevé le / Collected:   2025/01/25`), not labels over their values.
  const labelShaped = (text: string) => metadataCellKind(text) === 'label' || /:\s*$/.test(text);
  // (A value after a colon set apart, `Nationality   : United Arab Emirates`, is its label's beside it, known label or not.)
  const besideTheirValues = withBand.filter(({ p }, k) => {
    const next = bandText(withBand[k + 1]?.p);
    if (band !== 'left' || !p.right.length) return false;
    return /^\s*[:\uff1a]/.test(p.right[0].text) || (labelShaped(textOf(p)) && (next === undefined || labelShaped(next)) && !labelShaped(p.right[0].text));
  }).length;
  if (besideTheirValues * 2 >= withBand.length) return null;
  // Labels no list knows (`Voorletters / Initials`), each with one short value beside it, the values
  // aligned in one column: a label/value block too, not labels over values beside a table or text.
  const valued = band === 'left' ? withBand.filter(({ p }) => p.right.length === 1).map(({ p }) => p.right[0]) : [];
  const bandWidth = median(withBand.map(({ p }) => Math.max(...p[band].map((c) => c.x1)) - Math.min(...p[band].map((c) => c.x0))));
  const valueColumn =
    valued.length >= withBand.length * 0.8 &&
    Math.max(...valued.map((c) => c.x0)) - Math.min(...valued.map((c) => c.x0)) <= usual &&
    valued.every((c) => c.x1 - c.x0 <= bandWidth * 2);
  if (valueColumn) return null;
  const share = metadataCells / withBand.length;
  if (!laidOut && share < MIN_METADATA_SHARE && !(interleaved && share >= MIN_INTERLEAVED_METADATA_SHARE)) return null;
  const beside = span.filter((p) => p[other].length);
  // Beside a table or text, not beside more metadata (a two-column patient block reads fine as it is).
  const besideMetadata = beside.filter((p) => p[other].some((c) => metadataShaped(c.text))).length;
  if (beside.length < 2 || besideMetadata * 2 >= beside.length) return null;
  return { band, start: runStart + first, end: runStart + last, gutter, bandCells: withBand.length };
}
