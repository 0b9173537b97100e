import { columnOf, type Column, type ColumnRole } from './columns';
import type { Cell, Line } from './layout';
import { boundWithoutComparator, intervalWithoutDash } from './ocr-decimals';
import { cellCountUnit, splitOcrUnit } from './ocr-units';
import {
  MULTI_WORD_QUALITATIVE,
  isFlag,
  isQualitative,
  isUnit,
  parseRange,
  parseValue,
  repairDecimalColons,
  repairOcrNumber,
  type ParsedRange,
  type ParsedValue,
} from './values';

/** A result row's parts, before interpretation. */
export interface RowParts {
  name: string;
  value: ParsedValue;
  units: string | null;
  range: ParsedRange | null;
  flag: string | null;
  /** OCR only: the reference read as one number, its comparator lost (ocr-decimals.ts `boundWithoutComparator`). */
  bound?: number;
}

/** One letter alone that is no unit (`g`, `L` and `U` are): a speck OCR read as a letter. */
const STRAY_LETTER = /^[A-FH-KM-TV-Za-fh-km-tv-z]$/;

/** Multi-word values and intervals read as one token. */
const PHRASES = new RegExp(`(?<![\\p{L}])(${[...MULTI_WORD_QUALITATIVE, 'up to', 'less than', 'greater than'].join('|')})(?![\\p{L}])`, 'giu');

function tokens(text: string): string[] {
  return (
    text
      // Joined by a word joiner, which (unlike a no-break space) \s does not match.
      .replace(PHRASES, (m) => m.replace(/\s+/g, '\u2060'))
      .replace(/(\d)\s*[-–—]\s*(\d|\.\d)/g, '$1-$2')
      // A comparator set apart from its bound, in brackets too (`< 9`, `(> 60)`).
      .replace(/(^|[\s([])(<=|>=|<|>|≤|≥)\s+(\d)/g, '$1$2$3')
      // A bold flag set close to its value reads as one word by OCR: `9.4H` (or `9.4'H`) is `9.4 H`, `2+A` is `2+ A`.
      .replace(/(\d)['’`]?(HH|LL|H|L)(\*?)(?=\s|$)/g, '$1 $2$3')
      .replace(/(^|\s)([1-4]\+)(A|AA|H|L)(\*?)(?=\s|$)/g, '$1$2 $3$4')
      .replace(/\u2060(\d)/g, ' $1')
      .split(/\s+/)
      .map((t) =>
        t
          .replace(/\u2060/g, ' ')
          .replace(/^\((.*)\)$/, '$1')
          .replace(/^[[(]|[\])]$/g, ''),
      )
      .filter(Boolean)
  );
}

function cleanName(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/[\s.:]+$/, '')
    .replace(/\s*[*¹²³†‡]+$/, '')
    .trim();
}

/** A test name starts with a letter (or a digit then letters: `25-Hydroxy`, `25 (OH) Vitamin D`), and is not a sentence. */
function looksLikeName(text: string): boolean {
  const t = text.trim();
  return /^[\p{L}(%]|^\d+[-,]?\s?\(?\p{L}/u.test(t) && /\p{L}/u.test(t) && t.length <= 60 && !t.includes(':');
}

/** Classifies the tokens after the name: the first value, then flag, units, interval. */
function classify(parts: { text: string; role: ColumnRole | null }[], ocr: boolean): Omit<RowParts, 'name'> | null {
  let value: ParsedValue | null = null;
  let units: string | null = null;
  let range: ParsedRange | null = null;
  let flag: string | null = null;
  let bound: number | null = null;
  let unclassified = 0;
  for (const part of parts) {
    if (part.role === 'previous' || part.role === 'collected' || part.role === 'other') continue;
    if (part.role === 'reference' && !range) {
      const text = ocr ? repairDecimalColons(part.text) : part.text;
      const dashless = ocr ? intervalWithoutDash(text) : null;
      const whole = parseRange(dashless ?? text);
      if (whole) {
        range = whole;
        continue;
      }
      const lone = ocr && value ? boundWithoutComparator(text) : null;
      if (lone !== null) {
        bound = lone;
        continue;
      }
    }
    // (A flag run into the unit's cell, `↑↑ %`, is read token by token below.)
    const unitCell = part.text.trim();
    if (part.role === 'units' && !units && unitCell && !parseValue(unitCell) && !isFlag(unitCell.split(/\s+/)[0]) && !(ocr && STRAY_LETTER.test(unitCell))) {
      units = unitCell;
      continue;
    }
    // A cell count's unit as OCR reads it (`107 3/uL`, `10~3/uL`) is one unit, not a number and a
    // stray word (which, with a previous result beside it, made the row a sentence and lost it).
    const cellCount: string | null = ocr && value && !units && part.role !== 'reference' ? cellCountUnit(part.text) : null;
    if (cellCount) {
      units = cellCount;
      continue;
    }
    const words = tokens(part.text);
    for (let i = 0; i < words.length; i += 1) {
      const token = ocr ? repairOcrNumber(words[i]) : words[i];
      if (!value) {
        const v = parseValue(token);
        if (v && part.role !== 'reference' && part.role !== 'units') {
          value = v;
          continue;
        }
        if (part.role === 'result') return null;
      }
      if (!flag && isFlag(token) && value) flag = token;
      else if (
        !range &&
        value &&
        (part.role === 'reference' || /[-<>≤≥]|^(up to|less than|greater than)/i.test(token) || part.role === null) &&
        parseRange(token) &&
        !(part.role === null && parseValue(token)?.type === 'numeric')
      ) {
        range = parseRange(token);
      } else if (!units && isUnit(token.replace(/[.,;:]+$/, '')) && value && !(ocr && STRAY_LETTER.test(token))) {
        // A unit OCR read as words (`ng/ nl`) is one unit, not a unit and a stray word.
        const split = ocr ? splitOcrUnit(words.slice(i)) : null;
        units = split ?? token.replace(/[.,;:]+$/, '');
        if (split) i += split.split(' ').length - 1;
      } else {
        // Without a header, a number with decimals after the value's unit (or in brackets) is its
        // interval's bound or a previous result: either has the analyte's magnitude. Still counted
        // unclassified, so what is taken for a row does not change.
        if (ocr && value && !range && bound === null && part.role === null && (units || /^\(.*\)$/.test(token))) bound = boundWithoutComparator(token);
        if (part.role === null || part.role === 'result') unclassified += 1;
      }
    }
  }
  // A sentence with a number in it (an address, a footer) is not a result row.
  if (!value || unclassified > 2) return null;
  return { value, units, range, flag, ...(bound !== null && !range ? { bound } : {}) };
}

/** A sentence's full stop at the end of a line (`(race-free).`, `if < 60.`), where a row ends in its units, range or flag. */
const SENTENCE_END = /[\p{L}\d]\)?\.$/u;

/** The columns a cell overlaps. */
function spannedColumns(cell: { x0: number; x1: number }, columns: Column[]): Column[] {
  return columns.filter((c) => Math.min(cell.x1, c.x1) - Math.max(cell.x0, c.x0) > 0);
}

/** A row under a table header: cells placed in columns by their positions. */
export function rowFromColumns(line: Line, columns: Column[], ocr: boolean): RowParts | null {
  // A note under a row, one cell across the columns and a sentence (`eGFR by CKD-EPI 2021
  // (race-free). Repeat within 3 months if < 60.`): many words and a full stop at its end.
  const [only] = line.cells;
  const across = line.cells.length === 1 && spannedColumns(only, columns).length > 1;
  if (across && only.text.trim().split(/\s+/).length >= 6 && SENTENCE_END.test(only.text.trim())) return null;
  const placed: { text: string; role: ColumnRole; x: number }[] = [];
  for (const cell of line.cells) {
    const spanned = spannedColumns(cell, columns);
    const index = columnOf(cell, columns);
    // A qualitative result of two words over the name column's edge (`Non Reactive`) is one value: placed whole.
    if (spanned.length > 1 && isQualitative(cell.text)) {
      placed.push({ text: cell.text, role: columns[index].role, x: cell.x0 });
    } else if (spanned.length > 1 && columns[index].role !== 'name') {
      // Two columns' contents run together by a narrow gap: place each word on its own.
      // A number in brackets after a word of the name is the name's (`Metabolic Panel (14)`).
      for (const word of cell.words) {
        const role =
          /^\(.*\)$/.test(word.text) && placed.at(-1)?.role === 'name' ? 'name' : columns[columnOf({ x0: word.x, x1: word.x + word.w }, columns)].role;
        placed.push({ text: word.text, role, x: word.x });
      }
    } else if (spanned.length > 1 && columns[index].role === 'name') {
      // A long name run into its value by a narrow gap (`Thyroid Peroxidase Antibodies 4`): the
      // numbers at its end that stand in the result column are the value.
      const words = [...cell.words];
      const tail: typeof words = [];
      while (words.length > 1) {
        const word = words[words.length - 1];
        const column = columns[columnOf({ x0: word.x, x1: word.x + word.w }, columns)];
        if (column.role !== 'result' || !/^[<>≤≥]?\d/.test(word.text)) break;
        tail.unshift(words.pop()!);
      }
      if (!tail.length) placed.push({ text: cell.text, role: 'name', x: cell.x0 });
      else {
        placed.push({ text: words.map((w) => w.text).join(' '), role: 'name', x: cell.x0 });
        for (const word of tail) placed.push({ text: word.text, role: 'result', x: word.x });
      }
    } else {
      placed.push({ text: cell.text, role: columns[index].role, x: cell.x0 });
    }
  }
  const name = cleanName(
    placed
      .filter((p) => p.role === 'name')
      .map((p) => p.text)
      .join(' '),
  );
  if (!name || !looksLikeName(name)) return null;
  const rest = placed.filter((p) => p.role !== 'name');
  const parts = classify(rest, ocr);
  return parts ? { name, ...parts } : null;
}

/** A row without a table header: the first cell names the test, the rest are classified. */
export function rowFromCells(line: Line, ocr: boolean): RowParts | null {
  const cells: Cell[] = line.cells;
  if (!cells.length) return null;
  let name = cells[0].text;
  let rest = cells.slice(1).map((c) => ({ text: c.text, role: null as ColumnRole | null }));
  if (cells.length === 1 || !rest.some((r) => parseValue(tokens(r.text)[0] ?? ''))) {
    // The name and the value run together: split at the first value-like token after the name.
    const words = cells
      .map((c) => c.text)
      .join(' ')
      .split(/\s+/);
    // A number in brackets run into words is part of the name (`Comprehensive Metabolic Panel (14)`).
    const at = words.findIndex(
      (w, i) => i > 0 && !/^\(.*\)$/.test(w) && parseValue(ocr ? repairOcrNumber(w) : w) !== null && !/^\d+-?$/.test(words[i - 1] ?? ''),
    );
    if (at < 1) return null;
    // A sentence under a row (`eGFR calculated by the CKD-EPI 2021 equation (race-free).`, `… Repeat
    // within 3 months if < 60.`): many words before its number and a full stop at its end, where a
    // row run together ends in its units, range or flag.
    if (at >= 4 && SENTENCE_END.test(words.at(-1) ?? '')) return null;
    name = words.slice(0, at).join(' ');
    rest = [{ text: words.slice(at).join(' '), role: null }];
  }
  name = cleanName(name);
  if (INTERVALS_NOTE.test(name)) return null;
  // A date written out (`Dec 16, 2025 1:05 PM`, a value under a label no list knows) is no test and its year no value.
  if (!looksLikeName(name) || (MONTH_AND_DAY.test(name) && /^\d{4}\b/.test(rest[0]?.text ?? ''))) return null;
  const parts = classify(rest, ocr);
  return parts ? { name, ...parts } : null;
}

/** A note of which intervals a table uses (`Reference intervals for age 29 days-11 months, female`): no test, no panel's heading. */
export const INTERVALS_NOTE = /^reference (intervals?|ranges?|values?)\b/i;

/** A month and a day, as a date written out begins (`Dec 16,`, `May 15`). */
const MONTH_AND_DAY = /^(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(st|nd|rd|th)?,?$/i;

/**
 * `Name: value unit (ref low-high) H` items of a narrative summary, several per line. The colon is
 * not one between two digits: that is a decimal point OCR read as a colon (`Hemoglobin (Hb) 15:3
 * g/dL (13.2-17.1)` is a table row, not `Hemoglobin (Hb) 15` at 3).
 */
const NARRATIVE =
  /([A-Za-z%][A-Za-z0-9 ,'\-/%.()#]{0,50}?)(?:(?<!\d):|:(?!\d))\s*([<>≤≥]?\s?[\d.,]+|[A-Za-z][A-Za-z\- ]*?)(?:\s+([^\s()]+))?\s*\((?:ref(?:erence)?(?: range| interval)?[:.]?\s*)?([^)]*)\)(?:\s*([HL]{1,2}\*?|\*[HL]|A)(?=\s|$))?/g;

export function narrativeRows(line: Line): RowParts[] {
  const rows: RowParts[] = [];
  for (const m of line.text.matchAll(NARRATIVE)) {
    const value = parseValue(m[2]);
    const range = parseRange(m[4]);
    if (!value || (!range && m[4].trim())) continue;
    const units = m[3] && isUnit(m[3]) ? m[3] : null;
    rows.push({ name: cleanName(m[1]), value, units, range, flag: m[5] ?? null });
  }
  return rows;
}
