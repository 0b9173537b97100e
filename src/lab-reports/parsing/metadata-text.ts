import type { DateField } from './date-order';
import type { Line } from './layout';
import { labelField, nationalIdScheme } from './labels';
import { nameShaped } from './name-values';
import type { NationalIdScheme } from './national-ids';
import { honorificSex, parseSex } from './sex';

/** What a report prints without labels: dates alone, fields in sentences, a salutation, a banner naming the patient. Used by ./metadata.ts and ./metadata-lines.ts. */

/** A line that is a date and nothing else (`14 March 2025`, `March 14, 2025`, `03/14/2025`). */
export const DATE_ONLY = /^(\d{1,2}\s+[A-Za-z]{3,9}\.?,?\s+\d{4}|[A-Za-z]{3,9}\.?\s+\d{1,2},?\s+\d{4}|\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4})$/;

const DATE_TEXT = String.raw`(\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Za-z]{3,9}\.?,?\s+\d{4}|[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4})`;

/** Fields in running text, each after the words that introduce it. */
export const PROSE: [RegExp, DateField | 'specimen' | 'specimen_fallback'][] = [
  [new RegExp(String.raw`\b(?:born(?: on)?|date of birth|DOB|D\.O\.B\.?)\s*:?\s*${DATE_TEXT}`, 'i'), 'dob'],
  // (A blood donor's letter: `Thank you for your donation on May 2, 2025`.)
  [new RegExp(String.raw`\b(?:collected|drawn|donation|donated)(?: on)?\s*:?\s*${DATE_TEXT}`, 'i'), 'date_collected'],
  [
    /\b(?:(?:specimen|accession|sample)(?: no\.?| number| id| #| ref\.?)?|(?:lab|requisition)\s*(?:no\.?|number|id|#|ref(?:erence)?\.?))\s*[:#]?\s+([A-Z0-9][A-Z0-9/-]*\d[A-Z0-9/-]*)/i,
    'specimen',
  ],
  // An order or control number in a sentence is the specimen's only when nothing else names one, as under a label (labels.ts).
  [/\b(?:order|control)\s*(?:no\.?|number|id|#)\s*[:#]?\s+([A-Z0-9][A-Z0-9/-]*\d[A-Z0-9/-]*)/i, 'specimen_fallback'],
  [
    new RegExp(String.raw`\b(?:released|verified|finali[sz]ed|resulted|signed(?: out)?|authori[sz]ed|validated)(?: on| at)?\s*:?\s*${DATE_TEXT}`, 'i'),
    'date_reported',
  ],
];

export const PROSE_DOB = PROSE[0][0];

/** A letter's salutation to the patient, by the given name (`Dear Kayla,`) or as the donor or patient (`Dear Donor,`), not to a doctor. */
export const PATIENT_SALUTATION = /^Dear\s+(?:(?:Blood\s+)?(?:Donor|Patient)|(?!(?:Dr|Doctor|Prof|Sir|Madam|Colleague)\b)(\p{Lu}[\p{L}'-]+)),$/u;

/** A letter's salutation to a doctor (`Dear Dr. Anna Reyes,`). */
export const SALUTATION = /^(?:Dear|Hello|Hi)\s+((?:Dr|Doctor|Prof)\.?\s+[\p{L}.'\- ]+?),?$/u;

/**
 * A line that names the patient without labels, a title before the name and the age or sex in
 * the cells after it (`Mr Iain J MacLeod | Age 64y | Male | CHI 1109614616`), with the identity
 * numbers it prints by their own short labels.
 */
export function patientBanner(line: Line): { name: string; sex: 'male' | 'female' | null; ids: { value: string; scheme: NationalIdScheme }[] } | null {
  const [first, ...rest] = line.cells.map((cell) => cell.text.trim());
  if (rest.length < 2 || first.includes(':') || !honorificSex(first) || !nameShaped(first)) return null;
  const sexes = rest.map((cell) => (/^(male|female)$/i.test(cell) ? parseSex(cell) : null)).filter((sex) => sex !== null);
  if (!sexes.length && !rest.some((cell) => /^age\s+\d{1,3}\s*y/i.test(cell))) return null;
  const ids = rest.flatMap((cell) => {
    const [label, ...value] = cell.split(/\s+/);
    const scheme = nationalIdScheme(labelField(label));
    return scheme ? [{ value: value.join(' '), scheme }] : [];
  });
  return { name: first, sex: sexes[0] ?? null, ids };
}
