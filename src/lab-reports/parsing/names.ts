/**
 * Reading the people printed on a lab report: the patient's given and family names (with the
 * "LAST, FIRST" convention, initials, particles, suffixes and honorifics), the ordering provider
 * and the sex a label or honorific gives. Used by ./metadata.ts.
 */

/** Generational suffixes and degrees printed after a name. */
const SUFFIX = /^(jr|sr|ii|iii|iv|v|md|do|phd|rn|np|pa|dds|esq)\.?$/i;
/** Honorifics printed before a name. */
const HONORIFIC = /^(mr|mrs|ms|miss|mx|dr|prof|med)\.?$/i;

/** Words that begin a surname of several (`van der Berg`, `De la Cruz`, `St. John`). */
const PARTICLE = /^(van|von|der|den|de|del|della|la|le|da|di|du|dos|das|st\.?|ste\.?|bin|al|ter|ten)$/i;

/** The sex an honorific before a name says (`Mr` male; `Mrs`, `Ms`, `Miss` female). */
export function honorificSex(text: string): 'male' | 'female' | null {
  const first = text.trim().split(/\s+/)[0]?.replace(/\.$/, '').toLowerCase();
  if (first === 'mr') return 'male';
  if (first === 'mrs' || first === 'ms' || first === 'miss') return 'female';
  return null;
}

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
  return text
    .replace(/[^\p{L}'\- ]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function givenName(text: string): string | null {
  const first = words(text).find((w) => !isInitial(w));
  return first ? cleanName(first) || null : null;
}

export function surname(text: string): string | null {
  const kept = words(text.replace(/,.*$/, ''));
  return kept.length ? cleanName(kept.join(' ')) || null : null;
}

/**
 * Family names that come first in the names of those who carry them, as Chinese, Korean and
 * Vietnamese names are printed (`TAN MEI LING`). A name without a comma that starts with one is
 * not split: a report shows no sign of which order its names follow, and a wrong name files
 * results under another person. (After a comma the family name is known; the words after it are
 * read as a given name and middle names, as for any name.)
 */
const SURNAME_FIRST = new Set(
  (
    'tan lim lee ng ong wong goh chua chan koh teo ang yeo tay ho low toh sim chong chia seah foo lau leong yap quek soh heng ' +
    'chen wang li zhang liu yang huang zhao wu zhou xu sun zhu hu guo lin luo zheng liang cheung leung tsang ' +
    'kim park choi jung kang cho yoon jang shin ' +
    'nguyen tran pham hoang huynh phan vu vo dang bui ngo duong'
  ).split(' '),
);

export interface ReadName {
  first: string | null;
  last: string | null;
  confidence: number;
  reason: string | null;
}

/** Why a name read whole has no surname: which of its later words are the surname is not printed. */
export const UNSPLIT_SURNAME = 'middle names or two surnames, not told apart';

/**
 * A printed patient name → first and last: `DOE, JANE M`, `Doe, Jane Marie`, `Jane M. Doe`,
 * `Dr. Jane Doe-Smith Jr.`, `DOE JR, JANE`. Middle names and initials, suffixes and titles are
 * dropped; a compound surname after a comma is kept whole. A name of one word, or a value that
 * carries more than a name (`Jane Doe DOB 01/02/1980`), is not split by guesswork.
 *
 * `middleNames`: whether words between the given name and the last word of a name without a
 * comma are middle names, as English-language reports print them. Where the report may follow
 * another convention (Spanish and Portuguese names carry two surnames: `Javier Santiago Colón`),
 * such a name's surname is left null with the reason, and its given name (the first word either
 * way) is still read.
 */
export function readName(text: string, middleNames = true): ReadName {
  const t = text.replace(/\s+/g, ' ').trim();
  const unsure = (reason: string): ReadName => ({ first: null, last: null, confidence: 0, reason });
  if (/\d/.test(t)) return unsure(`a name with digits in it: "${t.slice(0, 40)}"`);
  if (/[/&@[\]]/.test(t)) return unsure(`not a name: "${t.slice(0, 40)}"`);
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
  if (SURNAME_FIRST.has(full[0].toLowerCase())) return unsure(`a name that may be printed family name first: "${t}"`);
  // Without a comma the last word is the surname, with the particles before it (`Anna van der Berg`);
  // more than one middle word left leaves room for a compound surname.
  let start = full.length - 1;
  while (start > 1 && PARTICLE.test(full[start - 1])) start -= 1;
  if (start > 1 && !middleNames) {
    return { first: cleanName(full[0]), last: null, confidence: 0.95, reason: `${UNSPLIT_SURNAME}: "${t}"` };
  }
  const confidence = start === 1 ? 0.95 : 0.8;
  return {
    first: cleanName(full[0]),
    last: cleanName(full.slice(start).join(' ')),
    confidence,
    reason: start === 1 ? null : 'middle words taken as middle names',
  };
}

/** The provider as First Last (`Dr. Anna Reyes`, `REYES, ANNA MD`, `Anna Reyes, MD`), else as printed, cleaned. */
export function providerName(text: string): string | null {
  const cut = text.split(/\s{2,}|\b(?:NPI|UPIN|Phone|Tel)\b/i)[0];
  const name = cut
    .replace(/[^\p{L}.,'\- ]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[,]$/, '');
  if (!/\p{L}{2}/u.test(name)) return null;
  // Degrees after a comma (`Anna Reyes, MD`) are not a LAST, FIRST comma.
  const read = readName(name.replace(/,\s*((?:md|do|phd|np|pa|rn)\.?\s*)+$/i, ''));
  return read.first && read.last ? `${read.first} ${read.last}` : name;
}
export function parseSex(text: string): 'male' | 'female' | null {
  const t = text.toLowerCase();
  if (/\b(female|f|woman)\b/.test(t)) return 'female';
  if (/\b(male|m|man)\b/.test(t)) return 'male';
  return null;
}

/**
 * A patient value's name apart from what a line prints after it (`Jane Doe - DOB 1/2/1980 - F`,
 * `Ms. Jane Doe (born …)`, `Jane Doe, female, date of birth …`): the name, and the rest for the
 * sex and birth date it may carry. A `LAST, FIRST` comma is no cut.
 */
export function splitNameValue(value: string): { name: string; rest: string } {
  const cut =
    /\s+[-–|]\s+|\s*[(;]|,\s*(?=(?:male|female|man|woman|born|dob|d\.o\.b|date of birth|age|aged|\d)\b)|\s+(?=(?:born|dob|d\.o\.b\.?|date of birth)\b)/i.exec(
      value,
    );
  return cut ? { name: value.slice(0, cut.index).trim(), rest: value.slice(cut.index) } : { name: value.trim(), rest: '' };
}

/** Whether a printed name is a doctor's (`Dr. …`, `… MD`), not a patient's. */
export function isDoctor(text: string): boolean {
  return /^\s*(dr|doctor|prof)\b\.?/i.test(text) || /[\s,](md|do|mbbs|dds|np|pa-c|frcp)\.?\s*$/i.test(text);
}

/** Two to five words of a name: capitalised, initials, particles; no digits. */
const NAME_SHAPE = /^(?:(?:Mr|Mrs|Ms|Miss|Mx)\.?\s+)?(?:(?:\p{Lu}[\p{L}'-]*\.?|van|von|de|der|del|la|le|da|di|du),?\s+){1,4}\p{Lu}[\p{L}'-]*\.?$/u;

/** Whether a text is printed as a person's name (`DOE, JANE M`, `Jane van der Berg`), nothing else. */
export function nameShaped(text: string): boolean {
  return NAME_SHAPE.test(text.trim());
}
