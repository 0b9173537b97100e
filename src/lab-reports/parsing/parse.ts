import { columnOf, headerColumns, type Column } from './columns';
import { drawDateColumns, headingsAfterDraws } from './cumulative';
import { printsDecimalCommas, withDecimalPoints } from './decimal-comma';
import { ReportParseFailure } from './failure';
import { interpret } from './interpret';
import { nameKey } from './loinc/normalise';
import { lineKey, pageLines, repeatedLines, type Line } from './layout';
import { metadataShaped } from './label-pairs';
import { parseMetadata } from './metadata';
import { metadataLines } from './metadata-lines';
import { separateSideColumns } from './side-columns';
import { INTERVALS_NOTE, narrativeRows, rowFromCells, rowFromColumns, type RowParts } from './rows';
import { repairOcrUnit } from './ocr-units';
import { decimalFromColon, restoreDecimal, restoreIntervalDecimal } from './ocr-decimals';
import { flagMeaning } from './values';
import type { ExtractedDocument, MetadataField, ParsedReport, ParsedResult, ReportMetadata } from './types';

/** Share of a page's height at its top and bottom where running headers and footers print. */
const MARGIN_BAND = 0.15;
/** Below this share of the page height only footers print (and results never do). */
const FOOTER_BAND = 0.93;
const PAGE_NUMBER = /\bpage\s*\d+\s*(of|\/)\s*\d+\b/i;
/** A line about the lab's accreditation (`UKAS accredited medical laboratory No. 8812`, `ISO 15189:2022`): its numbers are no result, wherever a photo puts it. */
const ACCREDITATION = /\baccredit(ed|ation)\b|\bISO\s*15189\b/i;
/** Share of the first page's height at its top where the masthead prints (the lab's name and address), never results. */
const MASTHEAD_BAND = 0.1;

/**
 * Results and metadata from the words' positions: lines and cells rebuilt, table headers found
 * and their columns followed across page breaks, panel headings carried to the rows under them,
 * and narrative `Name: value unit (ref ...)` items read where there is no table.
 */
export function parseReport(doc: ExtractedDocument): ParsedReport {
  const report = parseReading(doc);
  if (!doc.pages.some((page) => page.alternative)) return report;
  // A page read twice (extract.ts): the page's results, with the rows only the other reading
  // found; each metadata field from the reading surer of it (one may lose a label the other reads).
  let other: ParsedReport;
  try {
    other = parseReading({ ...doc, pages: doc.pages.map((page) => page.alternative ?? page) });
  } catch {
    return report;
  }
  return { ...report, results: withRowsOnlyIn(report.results, other.results), metadata: surerFields(report.metadata, other.metadata) };
}

/**
 * `results` with the rows of `other` none of them names (by their names' letter pairs: OCR noise
 * in a name is still the same row), each placed after the row it follows in `other`. A row of
 * `other` whose name one reading garbled (`AIT` for `ALT`) is still the row it stands beside: the
 * next row of `results` that `other` does not name, with the same value and the same units or
 * reference interval, is that row and is not added twice (its name taken from the surer reading).
 */
function withRowsOnlyIn(results: ParsedResult[], other: ParsedResult[]): ParsedResult[] {
  const out = [...results];
  const otherKeys = other.map((row) => nameKey(row.test_name));
  const namedInOther = (row: ParsedResult) => otherKeys.some((key) => sameName(nameKey(row.test_name), key));
  let at = 0;
  for (const row of other) {
    const key = nameKey(row.test_name);
    const same = out.findIndex((r) => r.page === row.page && sameName(nameKey(r.test_name), key));
    if (same >= 0) {
      out[same] = withDecimalPointOf(out[same], row);
      at = same + 1;
      continue;
    }
    const beside = out[at];
    if (beside && beside.page === row.page && sameReading(beside, row) && !namedInOther(beside)) {
      if (row.confidence > beside.confidence) out[at] = { ...beside, test_name: row.test_name, notes: [...beside.notes, 'name from the second reading'] };
      at += 1;
      continue;
    }
    out.splice(at++, 0, { ...row, notes: [...row.notes, 'read from the second reading only'] });
  }
  return out;
}

/**
 * A row's value read without its decimal point (`17`) where the other reading has the same digits
 * with one (`1.7`), the interval read alike: the other's value, flag and interpretation. OCR drops
 * decimal points; it does not make them up.
 */
function withDecimalPointOf(row: ParsedResult, other: ParsedResult): ParsedResult {
  const numeric = row.type === 'numeric' && other.type === 'numeric';
  const lost = numeric && !row.value.includes('.') && other.value.includes('.') && other.value.replace('.', '') === row.value;
  if (!lost || row.min_reference_range !== other.min_reference_range || row.max_reference_range !== other.max_reference_range) return row;
  const { value, flag, interpretation, is_above_max_range, is_below_min_range } = other;
  return {
    ...row,
    value,
    flag,
    interpretation,
    is_above_max_range,
    is_below_min_range,
    notes: [...row.notes, `decimal point from the second reading: ${row.value} → ${value}`],
  };
}

/** Two readings of one printed row: the same value, and the same units or reference interval. */
function sameReading(a: ParsedResult, b: ParsedResult): boolean {
  const flat = (s: string | null) => (s ?? '').replace(/\s+/g, '').toLowerCase();
  if (flat(a.value) !== flat(b.value) || !flat(a.value)) return false;
  return (!!flat(a.units) && flat(a.units) === flat(b.units)) || (!!flat(a.reference_text) && flat(a.reference_text) === flat(b.reference_text));
}

/** Two names whose letter pairs mostly agree (Dice ≥ 0.85: `Red` and `White Blood Cell Count`, `MCH` and `MCHC` are two). */
function sameName(a: string, b: string): boolean {
  if (a === b) return true;
  const pairs = (s: string) => new Set(Array.from({ length: Math.max(0, s.length - 1) }, (_, i) => s.slice(i, i + 2)));
  const [pa, pb] = [pairs(a), pairs(b)];
  let common = 0;
  for (const p of pa) if (pb.has(p)) common += 1;
  return (2 * common) / (pa.size + pb.size || 1) >= 0.85;
}

function surerFields(a: ReportMetadata, b: ReportMetadata): ReportMetadata {
  const merged: ReportMetadata = { ...a, confidence: { ...a.confidence } };
  for (const field of Object.keys(a.confidence) as MetadataField[]) {
    if (b[field] === null || b.confidence[field].confidence <= a.confidence[field].confidence) continue;
    (merged as Record<MetadataField, unknown>)[field] = b[field];
    merged.confidence[field] = b.confidence[field];
  }
  return merged;
}

function parseReading(doc: ExtractedDocument): ParsedReport {
  const pages = doc.pages.map((page, i) => pageLines(page, i));
  const repeated = repeatedLines(pages);
  const isRunning = (line: Line) => {
    const height = doc.pages[line.page].height;
    if (PAGE_NUMBER.test(line.text) || ACCREDITATION.test(line.text) || line.y > height * FOOTER_BAND) return true;
    return repeated.has(lineKey(line)) && (line.y < height * MARGIN_BAND || line.y > height * (1 - MARGIN_BAND));
  };
  const { lines: all, side } = separateSideColumns(pages.flat());
  const metadata = parseMetadata(all, doc.pages[0]?.height ?? 0);
  const labelled = metadataLines(all);
  // Above the patient block, high on the first page: the masthead (a lab's address reads like a result).
  const firstLabelled = Math.min(...[...labelled].filter((line) => line.page === 0).map((line) => line.y));
  const masthead = Number.isFinite(firstLabelled) ? Math.min(firstLabelled, (doc.pages[0]?.height ?? 0) * MASTHEAD_BAND) : 0;
  // Between the patient block's labelled lines, above the first table's header: the block's own
  // lines (`MRN: 69036849`, `CSN: 4906519431` under labels no field reads), no results; a panel's
  // heading there (`Urinalysis` above a `Sample taken …` line) still names the table below it.
  const firstHeader = all.find((line) => line.page === 0 && headerColumns(line) !== null);
  const blockEnd = firstHeader ? Math.max(...[...labelled].filter((line) => line.page === 0 && line.y < firstHeader.y).map((line) => line.y)) : -Infinity;
  // The block runs on through the `Label: value` lines right under its last labelled one that no
  // field reads (`Mobile: 012 7596 7467`, `Patient Code: 856776`), up to the first line that is not one.
  const tail = new Set<Line>();
  if (firstHeader) {
    for (const line of all.filter((l) => l.page === 0 && l.y > blockEnd && l.y < firstHeader.y)) {
      if (labelled.has(line) || !line.cells.every((cell) => metadataShaped(cell.text) && cell.text.includes(':'))) break;
      tail.add(line);
    }
  }
  const inPatientBlock = (line: Line) => tail.has(line) || (line.page === 0 && line.y > firstLabelled && line.y < blockEnd && !isHeading(line));
  const resultLines = all.filter(
    (line) => !isRunning(line) && !labelled.has(line) && !side.has(line) && !(line.page === 0 && line.y < masthead) && !inPatientBlock(line),
  );
  const results = parseResults(printsDecimalCommas(resultLines) ? resultLines.map(withDecimalPoints) : resultLines, doc.method === 'ocr');
  if (!results.length) throw new ReportParseFailure('invalid_input', 'No lab results were found in the file; it does not look like a lab report.');
  return { metadata, results, ...(doc.method === 'ocr' ? { ocr: true } : {}) };
}

function parseResults(lines: Line[], ocr: boolean): ParsedResult[] {
  const results: ParsedResult[] = [];
  let columns: Column[] | null = null;
  let panel: string | null = null;
  let heading: string | null = null;
  /** A cumulative table's draw columns, until its first row (the lines between say more of each draw). */
  let draws: Column[] | null = null;
  for (const line of lines) {
    const dated = drawDateColumns(line);
    if (dated) {
      columns = draws = dated;
      if (heading) panel = heading;
      heading = null;
      continue;
    }
    const more = draws ? headingsAfterDraws(line, draws) : null;
    if (draws && more) {
      columns = [...draws, ...more];
      continue;
    }
    draws = null;
    const header = headerColumns(line);
    if (header) {
      columns = header;
      if (heading) panel = heading;
      heading = null;
      continue;
    }
    const narrative = narrativeRows(line);
    const rows: RowParts[] = narrative.length ? narrative : [];
    if (!rows.length) {
      const row = columns ? (rowFromColumns(line, columns, ocr) ?? valueNotFrom(rowFromCells(line, ocr), line, columns)) : rowFromCells(line, ocr);
      if (row) rows.push(row);
    }
    if (rows.length) {
      if (heading) panel = heading;
      heading = null;
      for (const row of rows) results.push(toResult(row, line, panel, ocr));
      continue;
    }
    if (INTERVALS_NOTE.test(line.text.trim())) continue;
    heading = isHeading(line) ? headingText(line) : null;
  }
  return results;
}

/**
 * A row read by its cells under a table header whose columns did not give one (the result cell
 * unreadable: OCR's `Td.` for `7.7`), unless its value is the reference interval's or a previous
 * result's cell and a number: then the row's value is not printed where the header says, and the
 * interval's bound (`<15.0`, `>60`) is no result.
 */
function valueNotFrom(row: RowParts | null, line: Line, columns: Column[]): RowParts | null {
  // A word (`Negative`, `Yellow`) read from the interval is most often the result too; a number is a bound.
  if (!row || row.value.type === 'comment' || row.value.type === 'boolean') return row;
  const source = line.cells.slice(1).find((cell) => cell.text.replace(/\s+/g, '').includes(row.value.value.replace(/\s+/g, '')));
  if (!source) return row;
  const role = columns[columnOf(source, columns)].role;
  return role === 'reference' || role === 'previous' ? null : row;
}

/** A panel or section heading: one short cell of words, no colon, not a sentence. */
function isHeading(line: Line): boolean {
  const text = line.text.trim();
  return (
    line.cells.length === 1 &&
    /\p{L}{3}/u.test(text) &&
    !text.includes(':') &&
    text.split(/\s+/).length <= 8 &&
    !/\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}/.test(text) &&
    !/^page\b/i.test(text) &&
    !/[.]$/.test(text)
  );
}

function headingText(line: Line): string {
  return line.text
    .replace(/\s*\((cont(inued|\.)?)\)\s*$/i, '')
    .replace(/\s*[-–]\s*cont(inued|\.)?$/i, '')
    .trim();
}

function specimenOf(...texts: (string | null)[]): string | null {
  const t = texts.filter(Boolean).join(' ');
  if (/urin/i.test(t)) return 'urine';
  if (/\b(cbc|blood count|hematology|haematology|differential|whole blood)\b/i.test(t)) return 'blood';
  if (/\b(serum|plasma|chemistry|metabolic|lipid)\b/i.test(t)) return 'serum_plasma';
  return null;
}

function toResult(row: RowParts, line: Line, panel: string | null, ocr: boolean): ParsedResult {
  const notes: string[] = [];
  let confidence = ocr ? line.confidence : 1;
  let { value } = row;
  const flag = row.flag ? flagMeaning(row.flag) : null;
  const range = ocr ? restoreIntervalDecimal(row.range, value, flag) : row.range;
  if (range !== row.range) {
    notes.push(`decimal point restored in the interval: ${row.range?.text ?? ''} → ${range?.min ?? ''}-${range?.max ?? ''}`);
    confidence *= 0.9;
  }
  const min = range?.min ?? null;
  const max = range?.max ?? null;
  const colon = ocr ? decimalFromColon(value.value, value.type, min, max, row.range?.text ?? null) : null;
  if (colon !== null) {
    notes.push(`decimal point read as a colon: ${value.value} → ${colon} (reference ${row.range?.text ?? ''})`);
    value = { ...value, value: String(colon), type: 'numeric', number: colon };
    confidence *= 0.9;
  }
  // The interval as printed, or a bound whose comparator OCR lost: either says the analyte's
  // magnitude. Upper or lower limit, the bound is taken as both ends of the interval's scale
  // (half of it to all of it), so no value is taken down past a lower limit's scale.
  const printed = row.range?.text.includes('.')
    ? { min, max, text: row.range.text }
    : !range && row.bound !== undefined
      ? { min: row.bound / 2, max: row.bound, text: `${row.bound}, its comparator unread` }
      : null;
  if (ocr && value.type === 'numeric' && value.number !== null && !value.value.includes('.') && printed) {
    const restored = restoreDecimal(value.number, printed.min, printed.max, flag);
    if (restored !== null) {
      notes.push(`decimal point restored: ${value.number} → ${restored} (reference ${printed.text})`);
      value = { ...value, value: String(restored), number: restored };
      confidence *= 0.8;
    }
  }
  const judged = interpret({
    number: value.number,
    comparator: value.comparator,
    value: value.value,
    min,
    max,
    expected: range?.expected ?? null,
    flag: row.flag,
  });
  return {
    test_name: row.name,
    value: value.value,
    type: value.type,
    units: ocr ? repairOcrUnit(row.units) : row.units,
    min_reference_range: min,
    max_reference_range: max,
    reference_text: row.range?.text ?? null,
    flag: row.flag,
    ...judged,
    source_panel_name: panel,
    specimen: specimenOf(panel, row.name),
    page: line.page + 1,
    confidence: Math.round(confidence * 1000) / 1000,
    notes,
  };
}
