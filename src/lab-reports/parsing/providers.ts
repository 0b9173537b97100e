import { DEGREES_AFTER_COMMA, SUFFIX } from './name-words';
import { FAMILY_NAME_FIRST, type NameConvention, notNameWord, readName } from './names';

/** The ordering provider a report names, read from a doctor's label's value. Used by ./metadata.ts and ./headed-blocks.ts. */

/**
 * The provider as First Last (`Dr. Anna Reyes`, `REYES, ANNA MD`, `Anna Reyes, MD`), else as printed,
 * cleaned; what follows the name in brackets (`(MCR M10165E)`, `(NPI 1234567890)`) is not the name.
 * A name that may be printed family name first (`Dr Ng Kok Wah`) is left null, as a patient's is.
 */
export function providerName(printed: string, convention: NameConvention = 'middle_names'): string | null {
  // OCR drops the space after a title in small type (`DrThomas Greer`, `DreIsabelle Gagnon`).
  const text = printed.replace(TITLE_RUN_IN, '$1 ');
  // What follows a dash is no part of the name either (`Fernanda Ribeiro - CRM-SP 98765`, a registration),
  // nor what is in square brackets (`Dr Sione Havili [CPN 22MHVD]`, a New Zealand prescriber number),
  // nor the practice after a comma (`Dr Hamish DUNCAN, Frankton Medical Centre`), nor a licence number (`Dr. Noa Friedman, Lic. No. 34567`).
  const cut = text
    .replace(BRACKETED_HONORIFIC, '')
    .split(/\s{2,}|\s*[([]|\s+[-–]\s+|,?\s*\b(?:NPI|UPIN|Phone|Tel|Lic\.?\s*No|Licen[cs]e)\b/i)[0]
    .replace(PLACE_AFTER_COMMA, '');
  // A system user's id (`RN.KLAM`, who printed the page) names no doctor.
  if (USER_ID.test(cut.trim())) return null;
  // A patient who sent themselves, or a hospital that sent them, names no doctor; nor does Spanish `A quien corresponda` (to whom it may concern).
  if (/^\s*(self|self[- ]referred|walk[- ]?in|none|n\/a|accesso diretto|a quien corresponda)\s*$/i.test(text) || (!isDoctor(text) && NOT_A_PERSON.test(cut)))
    return null;
  const name = cut
    .replace(/[^\p{L}.,'\- ]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[,]$/, '');
  if (!/\p{L}{2}/u.test(name)) return null;
  // `TANAKA Kenji, M.D.`: a degree printed with its stops is a degree too (not initials).
  const undotted = name.replace(/,\s*((?:\p{L}\.){2,})\s*$/u, (whole, letters: string) =>
    SUFFIX.test(letters.replace(/\./g, '')) ? `, ${letters.replace(/\./g, '')}` : whole,
  );
  // (Printed in Vietnam or Korea, a doctor's name comes family name first as a patient's does, and in Malaysia a
  // Malay one keeps every given name; printed in
  // Mexico, it ends in two surnames, and a compound given name is one.)
  const read = readName(
    undotted.replace(DEGREES_AFTER_COMMA, '').replace(SPECIALTY_AFTER_COMMA, ''),
    convention === 'vietnam' ||
      convention === 'korea' ||
      convention === 'malaysia' ||
      convention === 'greece' ||
      convention === 'mexico' ||
      convention === 'two_surnames'
      ? convention
      : 'middle_names',
  );
  if (read.reason?.startsWith(FAMILY_NAME_FIRST)) return null;
  // A sentence or a place under a doctor's label (`Your patient's results are below`) names no doctor.
  if (!isDoctor(text) && notNameWord(name)) return null;
  return read.first && read.last ? `${read.first} ${read.last}` : name;
}
/**
 * A doctor's specialty after the name (`Bart van Beek, MDL-arts`, `Kees de Boer, huisarts`,
 * `Anna Lee, Nephrologist`, `Δρ. Θεόδωρος Καλογεράκης, Νεφρολόγος`): Dutch `-arts` and `-loog` words,
 * English `-ologist` ones, Swedish `leg. läkare` (licensed physician), Danish and Norwegian `overlæge`, Greek `-λόγος` ones and `Ιατρός` (`Γενική Ιατρός`, a general practitioner).
 */
const SPECIALTY_AFTER_COMMA =
  /,\s*(?:\p{L}+-arts|arts-\p{L}+|huisarts|kinderarts|internist|chirurg|\p{L}{3,}oloog|\p{L}{3,}ologist|klinisch chemicus|(?:leg\.?\s+)?(?:över|specialist)?läkare|overl[æe]ge|l[æe]ge|\p{L}{3,}λ[οό]γος|(?:\p{L}+\s)?ιατρ[οό]ς(?:\s\p{L}+)?)\.?\s*$/iu;
/** A doctor's title run into the name after it (a capital then a small letter: `DrThomas`, not `Drake`). */
const TITLE_RUN_IN = /^(\s*(?:Dr|Dre|Dra)\.?)(?=\p{Lu}\p{Ll})/u;
/** `Dr. (Mrs.) Bisi Ogunbiyi`: an honorific in brackets is part of the title, not a note after the name. */
const BRACKETED_HONORIFIC = /\s*\((?:mrs|mr|ms|miss|dr|prof)\.?\)/gi;
/** Words of a place, not a person (`Lagoon Hospital, Ikoyi`). */
const NOT_A_PERSON = /\b(hospital|clinic|centre|center|medical|health|laboratory|practice|surgery|infirmary)\b/i;
/** One word of capitals parted by a stop, as systems name their users (`RN.KLAM`, `LAB.JSMITH`). */
const USER_ID = /^[A-Z0-9]+\.[A-Z0-9.]+$/;
/** A place printed after a comma that follows the name. */
const PLACE_AFTER_COMMA = new RegExp(`,[^,]*${NOT_A_PERSON.source}.*$`, 'i');

/** Whether a printed name is a doctor's (`Dr. …`, `… MD`), not a patient's. */
export function isDoctor(text: string): boolean {
  return (
    /^\s*(dr|dre|dra|doctor|prof|dott|uzm|doç|op\.\s*dr|bs\.|bsck|ths|pgs|lek\.|δρ)(?![\p{L}])\.?/iu.test(text) ||
    // (A degree may be followed by more, `Leila Haddad, MD, FACOG`.)
    /[\s,](md|do|mbbs|dds|np|pa-c|frcp)\.?(\s*,[^,]*)*\s*$/i.test(text)
  );
}
