import { dayOrderOf, parseDate, type DayOrder } from './dates';
import type { Line } from './layout';
import type { MetadataField, ReportMetadata } from './types';

type Field = 'name' | 'first' | 'last' | 'dob' | 'sex' | 'age_sex' | 'collected' | 'reported' | 'specimen' | 'provider' | 'clia' | 'other';

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
  [/^(ordering physician|ordering provider|ordering doctor|ordered by|physician|provider|doctor|referring doctor|referring physician|requesting physician|requested by|clinician)$/i, 'provider'],
  [/^(clia|clia no\.?|clia #|clia number|clia id)$/i, 'clia'],
  [/^(received|date received|age|phone|address|account|account no\.?|client|mrn|patient id|fasting|status|report status|page|specimen type|sample type|lab director|director|npi)$/i, 'other'],
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

/** How sure the parser is of each metadata field, and why one it left null is null. */
export type MetadataConfidence = Record<MetadataField, { confidence: number; reason: string | null }>;

/** Patient, dates, specimen, provider and CLIA from the report's labelled fields; the lab's name from its masthead. */
export function parseMetadata(lines: Line[], firstPageHeight: number): ReportMetadata {
  const order = dayOrderEvidence(lines.map((l) => l.text));
  const notes: Partial<Record<MetadataField, { confidence: number; reason: string | null }>> = {};
  // The surest reading of a field counts (a label may appear twice, once unreadable).
  const note = (field: MetadataField, confidence: number, reason: string | null = null) => {
    if (!notes[field] || notes[field].confidence < confidence) notes[field] = { confidence, reason };
  };
  const firstPage = lines.filter((l) => l.page === 0);
  const metadata: Omit<ReportMetadata, 'confidence'> = {
    patient_first_name: null,
    patient_last_name: null,
    dob: null,
    gender: null,
    lab_name: labName(firstPage, firstPageHeight),
    lab_clia: null,
    ordering_provider: null,
    date_reported: null,
    date_collected: null,
    specimen_number: null,
  };
  const date = (field: 'dob' | 'date_collected' | 'date_reported', value: string) => {
    if (metadata[field] !== null) return;
    const read = readDate(value, order);
    metadata[field] = read.value;
    note(field, read.confidence, read.reason);
  };
  lines.forEach((line, i) => {
    // OCR confidence of the line lowers a field's only when poor: most good scans read 0.7-0.9.
    const ocr = Math.min(1, line.confidence / OCR_TRUSTED);
    for (const { field, value } of linePairs(line, lines[i + 1])) {
      if (!value) continue;
      if (field === 'name' && metadata.patient_last_name === null) {
        const name = readName(value);
        [metadata.patient_first_name, metadata.patient_last_name] = [name.first, name.last];
        note('patient_first_name', name.confidence * ocr, name.reason);
        note('patient_last_name', name.confidence * ocr, name.reason);
      } else if (field === 'first' && metadata.patient_first_name === null) {
        metadata.patient_first_name = givenName(value);
        note('patient_first_name', (metadata.patient_first_name ? 0.95 : 0) * ocr, metadata.patient_first_name ? null : `no name in "${value}"`);
      } else if (field === 'last' && metadata.patient_last_name === null) {
        metadata.patient_last_name = surname(value);
        note('patient_last_name', (metadata.patient_last_name ? 0.95 : 0) * ocr, metadata.patient_last_name ? null : `no name in "${value}"`);
      } else if (field === 'dob') date('dob', value);
      else if (field === 'sex' || field === 'age_sex') metadata.gender ??= parseSex(value);
      else if (field === 'collected') date('date_collected', value);
      else if (field === 'reported') date('date_reported', value);
      else if (field === 'specimen' && metadata.specimen_number === null && /\d/.test(value)) {
        metadata.specimen_number = value.split(/\s+/)[0].replace(/[.,;]$/, '');
        note('specimen_number', 0.9 * ocr);
      } else if (field === 'provider' && metadata.ordering_provider === null) {
        metadata.ordering_provider = providerName(value);
        if (metadata.ordering_provider) note('ordering_provider', 0.9 * ocr);
      }
    }
    const clia = CLIA.exec(line.text);
    if (clia && metadata.lab_clia === null) {
      metadata.lab_clia = clia[1].toUpperCase();
      note('lab_clia', 0.97 * ocr);
    }
  });
  if (metadata.gender) note('gender', 0.9);
  if (metadata.lab_name) note('lab_name', 0.7, 'the largest line at the top of the first page');
  const confidence = Object.fromEntries(
    METADATA_FIELDS.map((field) => [field, notes[field] ?? { confidence: 0, reason: 'not printed, or not found under a known label' }]),
  ) as MetadataConfidence;
  // A field the parser doubts is left out rather than guessed; its reason stays.
  for (const field of METADATA_FIELDS) {
    if (metadata[field] !== null && confidence[field].confidence < MIN_CONFIDENCE) {
      confidence[field].reason ??= 'too uncertain to report';
      (metadata as Record<MetadataField, unknown>)[field] = null;
    }
  }
  return { ...metadata, confidence };
}

/** Line OCR confidence from which a field read from it is trusted as from a text layer. */
const OCR_TRUSTED = 0.7;

/** Below this a field is reported null (OCR'd lines carry their words' confidence into it). */
const MIN_CONFIDENCE = 0.5;

const METADATA_FIELDS: MetadataField[] = [
  'patient_first_name', 'patient_last_name', 'dob', 'gender', 'lab_name', 'lab_clia', 'ordering_provider', 'date_reported', 'date_collected', 'specimen_number',
];

/** A CLIA number: two digits, `D`, seven digits, printed after "CLIA". */
const CLIA = /\bCLIA(?:\s*(?:no\.?|number|#|id))?\s*[:#]?\s*(\d{2}D\d{7})\b/i;

interface DayOrderEvidence {
  order: DayOrder;
  /** Whether some date on the report showed the order, rather than the US default being assumed. */
  shown: boolean;
}

function dayOrderEvidence(texts: string[]): DayOrderEvidence {
  const order = dayOrderOf(texts);
  if (order === 'day_first') return { order, shown: true };
  const shown = texts.some((text) => [...text.matchAll(/\b(\d{1,2})[/.-](\d{1,2})[/.-]\d{2,4}\b/g)].some((m) => Number(m[2]) > 12));
  return { order, shown };
}

/** A date, with less confidence when its day and month could be either way round and nothing on the report says which. */
function readDate(text: string, { order, shown }: DayOrderEvidence): { value: string | null; confidence: number; reason: string | null } {
  const value = parseDate(text, order);
  if (!value) return { value: null, confidence: 0, reason: `no date in "${text.slice(0, 40)}"` };
  const numeric = /\b(\d{1,2})[/.-](\d{1,2})[/.-]\d{2,4}\b/.exec(text);
  const ambiguous = numeric !== null && Number(numeric[1]) <= 12 && Number(numeric[2]) <= 12 && numeric[1] !== numeric[2];
  if (ambiguous && !shown) return { value, confidence: 0.75, reason: 'day and month read month first (US), as nothing on the report shows the order' };
  if (/\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2}\b/.test(text)) return { value, confidence: 0.7, reason: 'two-digit year' };
  return { value, confidence: 0.97, reason: null };
}

/** Generational suffixes and degrees printed after a name. */
const SUFFIX = /^(jr|sr|ii|iii|iv|v|md|do|phd|rn|np|pa|dds|esq)\.?$/i;
/** Honorifics printed before a name. */
const HONORIFIC = /^(mr|mrs|ms|miss|mx|dr|prof)\.?$/i;

function words(text: string): string[] {
  return text
    .replace(/\([^)]*\)/g, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}]+|[^\p{L}.'-]+$/gu, ''))
    .filter((w) => w && !SUFFIX.test(w.replace(/,$/, '')) && !HONORIFIC.test(w));
}

const isInitial = (word: string) => /^\p{L}\.?$/u.test(word);

/** Title-less, suffix-less name words, initials dropped, with letters, apostrophes and hyphens only. */
function cleanName(text: string): string {
  return text.replace(/[^\p{L}'\- ]/gu, '').replace(/\s+/g, ' ').trim();
}

function givenName(text: string): string | null {
  const first = words(text).find((w) => !isInitial(w));
  return first ? cleanName(first) || null : null;
}

function surname(text: string): string | null {
  const kept = words(text.replace(/,.*$/, ''));
  return kept.length ? cleanName(kept.join(' ')) || null : null;
}

export interface ReadName {
  first: string | null;
  last: string | null;
  confidence: number;
  reason: string | null;
}

/**
 * A printed patient name → first and last: `DOE, JANE M`, `Doe, Jane Marie`, `Jane M. Doe`,
 * `Dr. Jane Doe-Smith Jr.`, `DOE JR, JANE`. Middle names and initials, suffixes and titles are
 * dropped; a compound surname after a comma is kept whole. A name of one word, or a value that
 * carries more than a name (`Jane Doe DOB 01/02/1980`), is not split by guesswork.
 */
export function readName(text: string): ReadName {
  const t = text.replace(/\s+/g, ' ').trim();
  const unsure = (reason: string): ReadName => ({ first: null, last: null, confidence: 0, reason });
  if (/\d/.test(t)) return unsure(`a name with digits in it: "${t.slice(0, 40)}"`);
  if (t.includes(',')) {
    const [lastPart, ...rest] = t.split(',');
    const restWords = words(rest.join(' '));
    const last = surname(lastPart);
    const given = restWords.find((w) => !isInitial(w));
    if (!last || !given) return unsure(`"LAST, FIRST" without both parts: "${t}"`);
    return { first: cleanName(given), last, confidence: 0.97, reason: null };
  }
  const kept = words(t);
  const full = kept.filter((w) => !isInitial(w));
  if (full.length < 2) return unsure(`one name word only: "${t}"`);
  // Without a comma the last word is the surname; more than one middle word leaves room for a compound surname.
  const confidence = full.length === 2 ? 0.95 : 0.8;
  return { first: cleanName(full[0]), last: cleanName(full[full.length - 1]), confidence, reason: full.length === 2 ? null : 'middle words taken as middle names' };
}

function providerName(text: string): string | null {
  const cut = text.split(/\s{2,}|\b(?:NPI|UPIN|Phone|Tel)\b/i)[0];
  const name = cut.replace(/[^\p{L}.,'\- ]/gu, ' ').replace(/\s+/g, ' ').trim().replace(/[,]$/, '');
  return /\p{L}{2}/u.test(name) ? name : null;
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
