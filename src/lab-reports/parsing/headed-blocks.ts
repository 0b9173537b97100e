/**
 * Blocks a report heads by whom they are about (`Patient Details`, `PATIENT INFORMATION`,
 * `Physician Details`, `Client / Ordering Physician:`), whose first line prints that person's name
 * with no label of its own: the name is the patient's (read from a text layer only), or the
 * ordering provider's. Used by ./label-pairs.ts.
 */
import { labelField, type Field } from './labels';
import { BLOCK_GAP_LINES, COLUMN_ALIGN_LINES, type Cell, type Line } from './layout';
import { readName } from './names';
import { nameShaped, splitNameValue } from './name-values';
import { isDoctor } from './providers';

/** Words a heading says of its block besides whom it is about. */
const HEADING_WORDS = /^(details|information|info|demographics|data|identification|particulars|and|&)$/;
const PATIENT_WORDS = /^(patient|patient's)$/;
const PROVIDER_WORDS = /^(physician|doctor|provider|clinician|prescriber)$/;
/** Words that say which doctor, or name the practice printed beside them (`Client / Ordering Physician`). */
const PROVIDER_COMPANY = /^(ordering|referring|requesting|client|practice)$/;

/** Whom a heading cell says its block is about, or null when the cell is no such heading. */
function headingOf(text: string): 'patient' | 'provider' | null {
  const words = text
    .toLowerCase()
    .replace(/:\s*$/, '')
    .split(/[\s/]+/)
    .filter(Boolean);
  if (!words.length || words.length > 5) return null;
  const patient = words.some((w) => PATIENT_WORDS.test(w));
  const provider = words.some((w) => PROVIDER_WORDS.test(w));
  if (patient === provider) return null;
  const allowed = patient
    ? (w: string) => PATIENT_WORDS.test(w) || HEADING_WORDS.test(w)
    : (w: string) => PROVIDER_WORDS.test(w) || PROVIDER_COMPANY.test(w) || HEADING_WORDS.test(w);
  // A single word is a heading only where it is no label of its own (`Patient` is read as one).
  if (!words.every(allowed) || (words.length === 1 && labelField(text) !== null)) return null;
  return patient ? 'patient' : 'provider';
}

/** A whole name, nothing else (no digits, no label, both names read): what a block's first line must print. */
function wholeName(text: string): string | null {
  const { name } = splitNameValue(text);
  if (!name || /\d/.test(name) || labelField(name) !== null || !nameShaped(name)) return null;
  const read = readName(name);
  return read.first && read.last ? name : null;
}

/**
 * The provider's name a provider block's first cell prints: bare, after an unknown label
 * (`Ordering: DOE, JOHN`), or before an NPI. A practice's name may print there too
 * (`RIVERSIDE INTERNAL MED`): a name of three words or more counts only as `LAST, FIRST` or a
 * doctor's (`Dr …`, `… MD`).
 */
function providerValue(cell: Cell): string | null {
  const text = cell.text.split(/\s{2,}|\b(?:NPI|UPIN)\b/i)[0].trim();
  const colon = text.indexOf(':');
  const field = colon < 0 ? null : labelField(text.slice(0, colon));
  if (field !== null && field !== 'provider') return null;
  const name = wholeName(colon < 0 ? text : text.slice(colon + 1).trim());
  if (!name) return null;
  return name.includes(',') || isDoctor(name) || name.split(/\s+/).length <= 2 ? name : null;
}

/**
 * The names printed first in the blocks `line` heads, on `next`: for each heading cell, the cell
 * of `next` that starts under it. A patient block's first cell must be a whole name with no label
 * (not a doctor's); a provider block's a whole name, bare or after a label no list knows.
 */
export function headedBlockPairs(line: Line, next: Line | undefined): { field: Field; value: string; cell: Cell }[] {
  if (!next || next.page !== line.page || next.y <= line.y || next.y - line.y > line.height * BLOCK_GAP_LINES) return [];
  const out: { field: Field; value: string; cell: Cell }[] = [];
  for (const heading of line.cells) {
    const about = headingOf(heading.text);
    if (about === null) continue;
    const first = next.cells.find((c) => Math.abs(c.x0 - heading.x0) <= line.height * COLUMN_ALIGN_LINES && c.x0 < heading.x1);
    if (!first) continue;
    if (about === 'patient') {
      // Only a text layer's: nothing but the layout says an OCR'd line is a name, and OCR misreads
      // a name's letters with confidence to spare (`Hemandez` for `Hernandez`, 0.89).
      const ocr = first.words.some((w) => w.confidence !== null);
      const name = ocr || first.text.includes(':') || isDoctor(first.text) ? null : wholeName(first.text);
      if (name) out.push({ field: 'name', value: name, cell: first });
    } else {
      const name = providerValue(first);
      if (name) out.push({ field: 'provider', value: name, cell: first });
    }
  }
  return out;
}
