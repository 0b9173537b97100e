import { dayOrderOf, parseDate, type DayOrder } from './dates';
import type { Line } from './layout';
import type { ReportMetadata } from './types';

type Field = 'name' | 'first' | 'last' | 'dob' | 'sex' | 'age_sex' | 'collected' | 'reported' | 'specimen' | 'other';

/** Header labels labs print, the field each names; `other` ones only end the value before them. */
const LABELS: [RegExp, Field][] = [
  [/^(patient name|patient|name|pt name|patient's name|client name)$/i, 'name'],
  [/^(first name|given name)$/i, 'first'],
  [/^(last name|surname|family name)$/i, 'last'],
  [/^(dob|d\.o\.b\.?|date of birth|birth date|birthdate|born)$/i, 'dob'],
  [/^(sex|gender)$/i, 'sex'],
  [/^(age\s*\/\s*sex|sex\s*\/\s*age|age\/gender|gender\/age)$/i, 'age_sex'],
  [/^(collected|collection date|date collected|collection|collected on|date of collection|coll\.? date|drawn|date drawn|specimen collected|collection date\/time|sample collected)$/i, 'collected'],
  [/^(reported|report date|date reported|reported on|date of report|result date|released|report released|final report date|date issued|issued)$/i, 'reported'],
  [/^(specimen|specimen id|specimen no\.?|specimen number|specimen #|accession|accession no\.?|accession number|accession #|acc\.? ?#|acc\.? no\.?|lab no\.?|lab number|sample id|sample no\.?|lab id|lab ref(erence)?|requisition( no\.?| #)?|barcode)$/i, 'specimen'],
  [/^(received|date received|age|phone|address|account|account no\.?|physician|ordering physician|ordering provider|provider|doctor|referring doctor|client|mrn|patient id|fasting|status|report status|page|specimen type|sample type)$/i, 'other'],
];

function labelField(text: string): Field | null {
  const t = text.trim().replace(/[:#]$/, '').trim();
  for (const [re, field] of LABELS) if (re.test(t)) return field;
  return null;
}

/** `Label:` inside a cell: the label words are up to four words before a colon. */
const INLINE = /((?:[A-Za-z.'/#]+\s?){1,4}?)\s*:\s*/g;

interface Pair {
  field: Field;
  value: string;
}

function linePairs(line: Line, next: Line | undefined): Pair[] {
  const pairs: Pair[] = [];
  // Labels with colons, value after them in the same cell or the next cell.
  line.cells.forEach((cell, index) => {
    const hits = [...cell.text.matchAll(INLINE)].filter((m) => labelField(m[1]) !== null);
    hits.forEach((hit, i) => {
      const start = (hit.index ?? 0) + hit[0].length;
      const end = i + 1 < hits.length ? hits[i + 1].index : cell.text.length;
      let value = cell.text.slice(start, end).trim();
      if (!value && i === hits.length - 1 && line.cells[index + 1] && labelField(line.cells[index + 1].text.split(':')[0]) === null) {
        value = line.cells[index + 1].text.trim();
      }
      pairs.push({ field: labelField(hit[1]) as Field, value });
    });
  });
  if (pairs.length) return pairs;
  // A row of bare labels with the values printed under them.
  const labels = line.cells.map((cell) => labelField(cell.text));
  if (next && labels.filter((l) => l !== null).length >= 2 && labels.every((l) => l !== null)) {
    line.cells.forEach((cell, i) => {
      const below = next.cells.find((c) => c.x0 < cell.x1 + 4 && cell.x0 < c.x1 + 4);
      if (below) pairs.push({ field: labels[i] as Field, value: below.text.trim() });
    });
  }
  return pairs;
}

/** Patient, dates and specimen from the report's labelled fields; the lab's name from its masthead. */
export function parseMetadata(lines: Line[], firstPageHeight: number): ReportMetadata {
  const order: DayOrder = dayOrderOf(lines.map((l) => l.text));
  const metadata: ReportMetadata = {
    patient_first_name: null,
    patient_last_name: null,
    dob: null,
    gender: null,
    lab_name: labName(lines.filter((l) => l.page === 0), firstPageHeight),
    date_reported: null,
    date_collected: null,
    specimen_number: null,
  };
  lines.forEach((line, i) => {
    for (const { field, value } of linePairs(line, lines[i + 1])) {
      if (!value) continue;
      if (field === 'name' && metadata.patient_last_name === null) {
        const name = splitName(value);
        if (name) [metadata.patient_first_name, metadata.patient_last_name] = name;
      } else if (field === 'first') metadata.patient_first_name ??= cleanName(value);
      else if (field === 'last') metadata.patient_last_name ??= cleanName(value);
      else if (field === 'dob') metadata.dob ??= parseDate(value, order);
      else if (field === 'sex' || field === 'age_sex') metadata.gender ??= parseSex(value);
      else if (field === 'collected') metadata.date_collected ??= parseDate(value, order);
      else if (field === 'reported') metadata.date_reported ??= parseDate(value, order);
      else if (field === 'specimen' && /\d/.test(value)) metadata.specimen_number ??= value.split(/\s+/)[0];
    }
  });
  return metadata;
}

function cleanName(text: string): string {
  return text.replace(/[^\p{L}'\- ]/gu, '').trim();
}

/** `DOE, JANE M` and `Jane M. Doe` → [first, last]; middle names and initials are dropped. */
function splitName(text: string): [string, string] | null {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.includes(',')) {
    const [last, rest] = t.split(',', 2).map((s) => s.trim());
    const first = rest.split(' ')[0];
    return last && first ? [cleanName(first), cleanName(last)] : null;
  }
  const parts = t.split(' ').filter((p) => !/^[A-Za-z]\.?$/.test(p));
  if (parts.length < 2) return null;
  return [cleanName(parts[0]), cleanName(parts[parts.length - 1])];
}

function parseSex(text: string): 'male' | 'female' | null {
  const t = text.toLowerCase();
  if (/\b(female|f|woman)\b/.test(t)) return 'female';
  if (/\b(male|m|man)\b/.test(t)) return 'male';
  return null;
}

const NOT_A_LAB_NAME = /\b(report|results?|patient|page|final|confidential|summary)\b/i;

/** The lab's name: the largest line printed in the top fifth of the first page. */
function labName(lines: Line[], pageHeight: number): string | null {
  const candidates = lines.filter(
    (l) => l.y < pageHeight * 0.2 && /\p{L}{3}/u.test(l.text) && !NOT_A_LAB_NAME.test(l.text) && !l.text.includes(':'),
  );
  if (!candidates.length) return null;
  const best = candidates.reduce((a, b) => (b.height > a.height * 1.05 ? b : a));
  return best.cells[0].text.trim();
}
