import { headerColumns } from './columns';
import { datedLabelField, labelField } from './labels';
import { lineContext } from './label-grid';
import { pairsOf, startsWithDate, type LineContext } from './label-pairs';
import type { Line } from './layout';
import { DATE_ONLY, patientBanner, PROSE, SALUTATION } from './metadata-text';

/** Which lines carry the report's metadata, not results. Used by ./parse.ts. */

/**
 * Whether a line carries the report's metadata (labelled patient or specimen fields, a letter's
 * date or its sentences about the specimen) rather than results.
 */
function isMetadataLine(line: Line, next: Line | undefined, context: LineContext): boolean {
  const text = line.text.trim();
  // A results table's header is none, though one of its headings is a label (`Collected | Lab Name | Result`).
  if (headerColumns(line)) return false;
  return (
    // (A label no field is read from is metadata too when its value is a date: `Received: 10:48 23/02/2025`.)
    pairsOf(line, next, context).some((pair) => pair.value && (pair.field !== 'other' || startsWithDate(pair.value))) ||
    DATE_ONLY.test(text) ||
    PLACE_AND_DATE.test(text) ||
    labelledDates(line) ||
    FILING_NOTE.test(text) ||
    US_ADDRESS.test(text) ||
    patientBanner(line) !== null ||
    (line.cells.length >= 2 && ADDRESS_LABEL.test(line.cells[0].text.trim())) ||
    SALUTATION.test(text) ||
    PROSE.some(([re]) => re.test(text))
  );
}

/**
 * A line of labels, each with its value in the cell after it, one of them a date (`Accettazione /
 * Received   13/09/2025 09:13`, `Kurum / Insurer   SGK   Kabul / Received   04.06.2025 11:39`):
 * metadata, though its labels name none of the fields read (a date is never a result).
 */
function labelledDates(line: Line): boolean {
  const cells = line.cells.map((cell) => cell.text.trim());
  if (cells.length < 2 || cells.length % 2 !== 0) return false;
  let dated = false;
  for (let i = 0; i < cells.length; i += 2) {
    const label = labelField(cells[i]) ?? (startsWithDate(cells[i + 1]) ? datedLabelField(cells[i]) : null);
    if (label === null || labelField(cells[i + 1]) !== null) return false;
    dated ||= startsWithDate(cells[i + 1]);
  }
  return dated;
}

/** A row of two or more labels, every cell one, over a row of as many values. */
function labelsOverValues(line: Line, next: Line): boolean {
  return line.cells.length >= 2 && next.cells.length === line.cells.length && line.cells.every((cell) => labelField(cell.text.trim()) !== null);
}

/** The lines that carry metadata, and the lines under a lone label that carry its value. */
export function metadataLines(lines: Line[]): Set<Line> {
  const found = new Set<Line>();
  const context = lineContext(lines);
  lines.forEach((line, i) => {
    const next = lines[i + 1];
    // An address or copy-to label alone over its value, or a row of labels of fields not read over a
    // row of their values (`Client | Application No. | Client No. | Agent`): both lines are metadata.
    const lone = line.cells.length === 1 && (ADDRESS_LABEL.test(line.text.trim()) || COPY_TO_LABEL.test(line.text.trim()));
    if (next && (lone || labelsOverValues(line, next))) {
      found.add(line).add(next);
      return;
    }
    if (!isMetadataLine(line, next, context)) return;
    found.add(line);
    if (next && pairsOf(line, next, context).some((pair) => pair.below && pair.value)) found.add(next);
  });
  return found;
}

/** A letter's place and date (`Vigevano, 16 gennaio 2025`, `Leeuwarden, 18-08-2025`, Greek `Αθήνα, 4 Ιανουαρίου 2025`, whose months run to 11 letters): no result. */
const PLACE_AND_DATE =
  /^\p{Lu}[\p{L}'.-]*(?: \p{L}[\p{L}'.-]*){0,3}, (\d{1,2}\.?\s+\p{L}{3,12}\.?,?\s+\d{4}|\p{L}{3,12}\.?\s+\d{1,2},?\s+\d{4}|\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4})$/u;
/** A practice's note of who filed or reviewed the result (`Filed by Dr M Ogilvie 26/05/2025   Normal`): no result. */
const FILING_NOTE = /^(filed|reviewed|actioned|seen and filed)( and \w+)? by\b/i;
/**
 * The patient's address as a label and its value (`Διεύθυνση / Address | Οδός Καραμανλή 40, 151 25
 * Μαρούσι`): metadata, though no field is read from it, and never a result (its numbers are no value).
 */
const ADDRESS_LABEL = /^(?:[^/]+\/\s*)?(?:home |patient's |patient )?address\s*:?$/i;
/** The doctors a copy of the report goes to (`cc`, `Copy to:`), named on the line below: not the orderer, and no result. */
const COPY_TO_LABEL = /^(cc|c\.c\.|copy to|copies to)\s*:?$/i;
/** A line of a US address (`Austin, TX 78746`, `910 W 29th St, Apt 214`): a letter's addressee, no result. */
const US_ADDRESS =
  /^([\p{L} .'-]+, [A-Z]{2} \d{5}(-\d{4})?|\d+ [\p{L}0-9 .'-]+ (St|Street|Ave|Avenue|Rd|Road|Blvd|Dr|Drive|Ln|Lane|Way|Ct|Court|Pl|Place|Pkwy|Hwy)\.?(,? (Apt|Suite|Unit|Ste|#)\.? ?\w+| #\w+)?)$/u;
