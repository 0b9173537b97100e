/**
 * Reading the people printed on a lab report: the patient's given and family names (with the
 * "LAST, FIRST" convention, initials, particles, suffixes and honorifics), the ordering provider
 * and the sex a label or honorific gives. Used by ./metadata.ts.
 */

import { chineseName, SURNAME_FIRST } from './chinese-names';

/** Degrees and credentials printed after a clinician's name (`MD`, `PA-C`, `FNP-C`, `MBBS`). */
const DEGREES = 'md|do|phd|rn|np|pa|pa-c|fnp|fnp-c|fnp-bc|agnp|agnp-c|aprn|dnp|np-c|cnm|cpnp|pnp|crnp|mbbs|mbchb';
/** Generational suffixes and degrees printed after a name. */
const SUFFIX = new RegExp(`^(jr|sr|ii|iii|iv|v|dds|esq|${DEGREES})\\.?$`, 'i');
/** Degrees after a comma (`Anna Reyes, MD`, `Yuki Tanaka, FNP-C`, `Tasha Monroe, APRN, CPNP`), which are no LAST, FIRST comma. */
const DEGREES_AFTER_COMMA = new RegExp(`,\\s*((?:${DEGREES})\\.?,?\\s*)+$`, 'i');
/**
 * Honorifics printed before a name (`Mallam` and `Alhaji` in Northern Nigeria, `Lolo` in the
 * East, `Sir`, `Dame`); a barrister's `Barr.` only with its stop, as Barr is also a surname.
 */
const HONORIFIC = /^((mr|mrs|ms|miss|mx|dr|prof|med|chief|alhaji|alhaja|hajiya|hajia|mallam|malam|lolo|engr|rev|sir|dame|sheikh|c\.o)\.?|barr\.)$/i;

/**
 * Words that begin a surname of several (`van der Berg`, `De la Cruz`, `St. John`), and the Irish
 * ones printed apart (`Ó Briain`, `Ní Bhriain`, `Mac Carthaigh`, `Nic Carthaigh`).
 */
const PARTICLE = /^(van|von|der|den|de|del|della|dela|delos|los|las|la|le|da|di|du|dos|das|san|santa|st\.?|ste\.?|bin|al|ter|ten|ó|ní|nic|mac|mhic|uí)$/i;

/** The sex an honorific before a name says (`Mr` male; `Mrs`, `Ms`, `Miss` female). */
export function honorificSex(text: string): 'male' | 'female' | null {
  const first = text.trim().split(/\s+/)[0]?.replace(/\.$/, '').toLowerCase();
  if (first === 'mr') return 'male';
  if (first === 'mrs' || first === 'ms' || first === 'miss') return 'female';
  return null;
}

function words(text: string): string[] {
  return (
    text
      // What a name says in brackets or quotes is the name the patient goes by (`Robert "Bobby" Whitfield`).
      .replace(/\([^)]*\)|"[^"]*"|“[^”]*”/g, ' ')
      .split(/\s+/)
      .map((w) => w.replace(/^[^\p{L}]+|[^\p{L}.'-]+$/gu, ''))
      .filter((w) => w && !SUFFIX.test(w.replace(/,$/, '')) && !HONORIFIC.test(w))
  );
}

/** One letter, with or without its stop; the Irish `Ó` (`Seán Ó Briain`) is a particle, not an initial. */
const isInitial = (word: string) => /^\p{L}\.?$/u.test(word) && word !== 'Ó' && word !== 'ó';
/** A word of two or more letters all in capitals (`OKONKWO`, `USMAN-KANO`). */
const isCapitals = (word: string) => /\p{L}{2}/u.test(word) && word === word.toUpperCase() && word !== word.toLowerCase();

/** Title-less, suffix-less name words, initials dropped, with letters, apostrophes and hyphens only. */
function cleanName(text: string): string {
  return text
    .replace(/[^\p{L}'\- ]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Words of a report, a fax or a place, never of a person's name (`RE: Lab results - DOE, JANE`,
 * `Attn: Lab results inbox`): a value holding one is no name, whatever its shape.
 */
const NOT_NAME_WORDS =
  /^(lab|labs|laboratory|laboratories|results?|reports?|tests?|testing|specimens?|patients?|fax|faxed|transmittal|confidential|inbox|information|panel|your|for|hospital|clinic|centre|center|medical|health|practice)$/i;

/** The first word of `text` that is a report's or a place's, not a name's; null when none is. */
function notNameWord(text: string): string | null {
  return text.split(/[\s,]+/).find((w) => NOT_NAME_WORDS.test(w.replace(/[^\p{L}]/gu, ''))) ?? null;
}

export function givenName(text: string): string | null {
  if (notNameWord(text)) return null;
  const first = words(text).find((w) => !isInitial(w));
  return first ? cleanName(first) || null : null;
}

export function surname(text: string): string | null {
  if (notNameWord(text.replace(/,.*$/, ''))) return null;
  const kept = words(text.replace(/,.*$/, ''));
  return kept.length ? cleanName(kept.join(' ')) || null : null;
}

/** Spanish given names that are seldom surnames (accents dropped), for a name that may hold two surnames. */
const SPANISH_GIVEN_NAMES = new Set(
  'jose juan antonio manuel luis carlos miguel angel francisco javier pedro jesus rafael fernando alejandro andres jorge maria elena luisa isabel carmen ana rosa teresa josefina beatriz patricia guadalupe lucia sofia cristina margarita'.split(
    ' ',
  ),
);

export type NameConvention = 'middle_names' | 'two_surnames' | 'unknown';

export interface ReadName {
  first: string | null;
  last: string | null;
  confidence: number;
  reason: string | null;
}

/** Why a name without a comma is not split: it may be printed family name first. */
export const FAMILY_NAME_FIRST = 'a name that may be printed family name first';

/** Why a name read whole has no surname: which of its later words are the surname is not printed. */
export const UNSPLIT_SURNAME = 'middle names or two surnames, not told apart';

/**
 * A printed patient name → first and last: `DOE, JANE M`, `Doe, Jane Marie`, `Jane M. Doe`,
 * `Dr. Jane Doe-Smith Jr.`, `DOE JR, JANE`. Middle names and initials, suffixes and titles are
 * dropped; a compound surname after a comma is kept whole. A name of one word, or a value that
 * carries more than a name (`Jane Doe DOB 01/02/1980`), is not split by guesswork.
 *
 * `convention`: how words between the given name and the last word of a name without a comma
 * are read. `middle_names`, as English-language reports print them; `two_surnames` on a report
 * labelled in Spanish, where a full name ends in the father's and the mother's surnames
 * (`Javier Santiago Colón`, `María Isabel Torres Ortiz`); `unknown` where the report may follow
 * another convention (a bilingual report in another language): such a name's surname is left
 * null with the reason, and its given name (the first word either way) is still read.
 */
export function readName(text: string, convention: NameConvention = 'middle_names'): ReadName {
  const t = text.replace(/\s+/g, ' ').trim();
  const unsure = (reason: string): ReadName => ({ first: null, last: null, confidence: 0, reason });
  if (/\d/.test(t)) return unsure(`a name with digits in it: "${t.slice(0, 40)}"`);
  if (/[/&@[\]]/.test(t)) return unsure(`not a name: "${t.slice(0, 40)}"`);
  const notName = notNameWord(t);
  if (notName) return unsure(`"${notName}" is no word of a name: "${t.slice(0, 40)}"`);
  if (t.includes(',')) {
    const [lastPart, ...rest] = t.split(',');
    const restWords = words(rest.join(' '));
    const last = surname(lastPart);
    // `TAN, MEI LING`: a Chinese given name of two syllables is one name, not a first and a middle.
    const chinese = chineseName([...words(lastPart), ...restWords]);
    if (chinese) return { first: cleanName(chinese.given), last: cleanName(chinese.family), confidence: 0.97, reason: null };
    const given = restWords.find((w) => !isInitial(w));
    if (!last || !given) return unsure(`"LAST, FIRST" without both parts: "${t}"`);
    return { first: cleanName(given), last, confidence: 0.97, reason: null };
  }
  const kept = words(t);
  const full = kept.filter((w) => !isInitial(w));
  if (full.length < 2) return unsure(`one name word only: "${t}"`);
  // A family name that comes first, then given-name syllables only (`TAN MEI LING`): a Chinese
  // name. One that may come first before other words (`Lee Ann Smith`) is not split: nothing on
  // the report says which order its names follow, and a wrong name files results under another person.
  const chinese = chineseName(kept);
  if (chinese) return { first: cleanName(chinese.given), last: cleanName(chinese.family), confidence: 0.9, reason: null };
  if (SURNAME_FIRST.has(full[0].toLowerCase())) return unsure(`${FAMILY_NAME_FIRST}: "${t}"`);
  // `OKONKWO Chukwuemeka Daniel`: the one word in capitals among words that are not is the family
  // name, also when it stands first (West African and French forms print it so). Last, it is the
  // family name anyway, read below with its particles (`Ludwig van BEETHOVEN`).
  const capitals = full.filter(isCapitals);
  if (capitals.length === 1 && capitals[0] !== full[full.length - 1] && full.some((w) => /\p{Ll}/u.test(w))) {
    const first = full.find((w) => !isCapitals(w))!;
    return { first: cleanName(first), last: cleanName(capitals[0]), confidence: 0.9, reason: null };
  }
  // Without a comma the last word is the surname, with the particles before it (`Anna van der Berg`);
  // more than one middle word left leaves room for a compound surname.
  let start = full.length - 1;
  while (start > 1 && PARTICLE.test(full[start - 1])) start -= 1;
  if (start > 1 && convention === 'two_surnames') {
    // The mother's surname is the last word with its particles, the father's the one before it.
    let father = start - 1;
    while (father > 1 && PARTICLE.test(full[father - 1])) father -= 1;
    // `José Antonio Santiago`: a given name there is a second given name before one surname as
    // likely as a father's surname; which, the report does not say.
    if (father === 1 && SPANISH_GIVEN_NAMES.has(full[1].toLowerCase().normalize('NFD').replace(/\p{M}/gu, ''))) {
      return { first: cleanName(full[0]), last: null, confidence: 0.9, reason: `${UNSPLIT_SURNAME}: "${t}"` };
    }
    return { first: cleanName(full[0]), last: cleanName(full.slice(father).join(' ')), confidence: 0.85, reason: 'two surnames, as Spanish names end' };
  }
  if (start > 1 && convention === 'unknown') {
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

/**
 * The provider as First Last (`Dr. Anna Reyes`, `REYES, ANNA MD`, `Anna Reyes, MD`), else as printed,
 * cleaned; what follows the name in brackets (`(MCR M10165E)`, `(NPI 1234567890)`) is not the name.
 * A name that may be printed family name first (`Dr Ng Kok Wah`) is left null, as a patient's is.
 */
export function providerName(text: string): string | null {
  // A patient who sent themselves, or a hospital that sent them, names no doctor.
  if (/^\s*(self|self[- ]referred|walk[- ]?in|none|n\/a)\s*$/i.test(text) || (!isDoctor(text) && NOT_A_PERSON.test(text))) return null;
  const cut = text.replace(BRACKETED_HONORIFIC, '').split(/\s{2,}|\s*\(|\b(?:NPI|UPIN|Phone|Tel)\b/i)[0];
  const name = cut
    .replace(/[^\p{L}.,'\- ]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[,]$/, '');
  if (!/\p{L}{2}/u.test(name)) return null;
  const read = readName(name.replace(DEGREES_AFTER_COMMA, ''));
  if (read.reason?.startsWith(FAMILY_NAME_FIRST)) return null;
  // A sentence or a place under a doctor's label (`Your patient's results are below`) names no doctor.
  if (!isDoctor(text) && notNameWord(name)) return null;
  return read.first && read.last ? `${read.first} ${read.last}` : name;
}
/** `Dr. (Mrs.) Bisi Ogunbiyi`: an honorific in brackets is part of the title, not a note after the name. */
const BRACKETED_HONORIFIC = /\s*\((?:mrs|mr|ms|miss|dr|prof)\.?\)/gi;
/** Words of a place, not a person (`Lagoon Hospital, Ikoyi`). */
const NOT_A_PERSON = /\b(hospital|clinic|centre|center|medical|health|laboratory|practice|surgery|infirmary)\b/i;

export function parseSex(text: string): 'male' | 'female' | null {
  const t = text.toLowerCase();
  // An age and sex run together (`62Y/F`, OCR's `62YF`).
  const ageSex = /\d\s*y(?:rs?|ears?)?\s*[/|\\]?\s*([mf])\b/.exec(t);
  if (ageSex) return ageSex[1] === 'f' ? 'female' : 'male';
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
