/**
 * Reading the patient's name printed on a lab report: given and family names (with the "LAST,
 * FIRST" convention, initials, particles, suffixes and honorifics) under each country's convention
 * (./name-conventions.ts). The ordering provider is read in ./providers.ts, the sex in ./sex.ts.
 */

import {
  arabicFamilyStart,
  arabicGivenWords,
  brazilianCompoundGiven,
  filipinoGivenNames,
  malayFatherStart,
  marianGivenWords,
  polishGiven,
  spanishGiven,
} from './given-names';
import { chineseName, hongKongFamilyWords, JAPANESE_SURNAMES, KOREAN_SURNAMES, SURNAME_FIRST } from './chinese-names';
import { AGNOMEN, HONORIFIC, isCapitals, isInitial, MILITARY_RANK, PARTICLE, SOUTH_ASIAN_TITLE, SUFFIX, SURNAME_GOES_ON } from './name-words';

function words(text: string): string[] {
  return (
    text
      // A title run into the name (`Mr.Somchai Jaidee`).
      .replace(/\b(Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.(?=\p{Lu}\p{Ll})/gu, '$1. ')
      // What a name says in brackets or quotes is the name the patient goes by (`Robert "Bobby" Whitfield`).
      .replace(/\([^)]*\)|"[^"]*"|“[^”]*”/g, ' ')
      .split(/\s+/)
      // (The Dutch contracted article keeps its apostrophe: `in 't Veld`.)
      .map((w) => (/^['’][ts]$/i.test(w) ? w : w.replace(/^[^\p{L}]+|[^\p{L}.'-]+$/gu, '')))
      .filter((w) => w && !SUFFIX.test(w.replace(/,$/, '')) && !HONORIFIC.test(w) && !MILITARY_RANK.test(w.replace(/,$/, '')))
  );
}

/** Title-less, suffix-less name words, initials dropped, with letters, apostrophes and hyphens only. */
function cleanName(text: string): string {
  return (
    text
      .replace(/[^\p{L}'\-. ]/gu, '')
      // Stops go, but that of a surname's `St.` or `Ste.` (`St. Clair`), which is how the name is spelled.
      .replace(/(?<!\b(?:st|ste))\./giu, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/**
 * Words of a report, a fax or a place, never of a person's name (`RE: Lab results - DOE, JANE`,
 * a results panel's heading beside a name label, `Cardiac Risk Markers`,
 * `Attn: Lab results inbox`): a value holding one is no name, whatever its shape.
 */
const NOT_NAME_WORDS =
  /^(lab|labs|laboratory|laboratories|results?|reports?|tests?|testing|specimens?|patients?|fax|faxed|transmittal|confidential|inbox|information|panel|your|for|hospital|clinic|centre|center|medical|health|practice|markers?|profile|cardiac|metabolic|lipids?|thyroid|urinalysis|chemistry|biochemistry|haematology|hematology|serology)$/i;

/** The first word of `text` that is a report's or a place's, not a name's; null when none is. */
export function notNameWord(text: string): string | null {
  return text.split(/[\s,]+/).find((w) => NOT_NAME_WORDS.test(w.replace(/[^\p{L}]/gu, ''))) ?? null;
}

/**
 * The given name printed under a given name's own label: its first word, or (`all`, as Italian
 * reports print every given name in `Nome`: `MARIA TERESA`) all of its words but initials.
 */
export function givenName(text: string, all = false): string | null {
  if (notNameWord(text)) return null;
  const given = words(text).filter((w) => !isInitial(w));
  if (!given.length) return null;
  return cleanName(all ? given.join(' ') : given[0]) || null;
}

export function surname(text: string): string | null {
  if (notNameWord(text.replace(/,.*$/, ''))) return null;
  const kept = words(text.replace(/,.*$/, ''));
  return kept.length ? cleanName(kept.join(' ')) || null : null;
}

export type NameConvention =
  | 'middle_names'
  | 'two_surnames'
  | 'unknown'
  | 'japan'
  | 'korea'
  | 'portuguese'
  | 'italy'
  | 'vietnam'
  | 'turkey'
  | 'greece'
  | 'mexico'
  | 'thailand'
  | 'malaysia'
  | 'israel'
  | 'poland'
  | 'philippines'
  | 'south_asia'
  | 'hong_kong';

/** Where a name printed all in capitals, without a comma, is printed family name first (a registry's order). */
const FAMILY_FIRST_IN_CAPITALS: readonly NameConvention[] = ['italy', 'greece', 'israel'];

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

/** A lone capital without its stop before a word in capitals (`J AMES`, `O ROURKE`), at the start of a part of a name. */
const LONE_LETTER_FIRST = /^\s*\p{Lu}\s+\p{Lu}{2,}/u;

/**
 * A name OCR read (`printed`, as `read`), with what a split word would make of it left null: OCR
 * splits a bold capital word after its first letter (`KUCERA, J AMES`: read as an initial and a
 * given name, that gives `AMES`) and loses an apostrophe (`O ROURKE, TAMARA`). A lone letter
 * without its stop before the given names leaves them null, and one before the surname leaves
 * the surname null.
 */
export function withoutSplitWords(read: ReadName, printed: string): ReadName {
  const comma = printed.indexOf(',');
  const [surnamePart, givenPart] = comma >= 0 ? [printed.slice(0, comma), printed.slice(comma + 1)] : ['', printed];
  const checked = { ...read };
  if (checked.first !== null && LONE_LETTER_FIRST.test(givenPart)) {
    checked.first = null;
    checked.reason = `a lone letter before the given name in "${printed}": OCR may have split the word`;
  }
  if (checked.last !== null && LONE_LETTER_FIRST.test(surnamePart)) {
    checked.last = null;
    checked.reason = `a lone letter before the surname in "${printed}": OCR may have split the word or lost an apostrophe`;
  }
  return checked;
}

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
export function readName(text: string, convention: NameConvention = 'middle_names', surnameFirst = false): ReadName {
  const t = text.replace(/\s+/g, ' ').trim();
  const unsure = (reason: string): ReadName => ({ first: null, last: null, confidence: 0, reason });
  if (/\d/.test(t)) return unsure(`a name with digits in it: "${t.slice(0, 40)}"`);
  const related = RELATED.exec(t);
  if (related) return relatedName(related[1], related[2], related[3], convention);
  if (/[/&@[\]]/.test(t)) return unsure(`not a name: "${t.slice(0, 40)}"`);
  const notName = notNameWord(t);
  if (notName) return unsure(`"${notName}" is no word of a name: "${t.slice(0, 40)}"`);
  if (t.includes(',')) {
    const [lastPart, ...rest] = t.split(',');
    const restWords = words(rest.join(' '));
    // `Groot, S.A.M. de`, `MEER, J.P. VAN DER`: the particles of a surname filed under its main
    // word come after the given names; they are the surname's.
    let particles = restWords.length;
    while (particles > 1 && PARTICLE.test(restWords[particles - 1])) particles -= 1;
    const moved = restWords.splice(particles);
    const main = surname(lastPart);
    const last = main && moved.length ? `${moved.join(' ')} ${main}` : main;
    // `TAN, MEI LING`: a Chinese given name of two syllables is one name, not a first and a middle.
    const chinese = chineseName([...words(lastPart), ...restWords]);
    if (chinese) return { first: cleanName(chinese.given), last: cleanName(chinese.family), confidence: 0.97, reason: null };
    // (`JANG, MI KYUNG`: printed in Korea, a given name of two syllables; `REYES, MARIA CRISTINA R.`: in the Philippines, the given names before the middle name.)
    const givenWords = restWords.filter((w) => !isInitial(w));
    const korean = convention === 'korea' && givenWords.length === 2 ? givenWords.join(' ') : null;
    const compound = convention === 'portuguese' ? brazilianCompoundGiven(restWords) : convention === 'philippines' ? filipinoGivenNames(restWords) : korean;
    // `BROUWER, C.A. (KEES)`: given names printed as initials, the name used (the Dutch `roepnaam`) in brackets.
    const called = restWords.every(isInitial) ? /\(\s*(\p{L}[\p{L}'-]+)\s*\)/u.exec(rest.join(' '))?.[1] : undefined;
    const given = compound ?? restWords.find((w) => !isInitial(w)) ?? called;
    // Initials alone are no given name: the surname is read, the given name left to a label of its own.
    if (last && !given && restWords.length > 0) return { first: null, last, confidence: 0.95, reason: `only initials of the given names: "${t}"` };
    if (!last || !given) return unsure(`"LAST, FIRST" without both parts: "${t}"`);
    return { first: cleanName(given), last, confidence: 0.97, reason: null };
  }
  // (Printed in South Asia, `SRI SUJIT KUMAR DAS`: `Sri` there is a title; in Indonesia, `Sri Wahyuni`, a given name.)
  const kept = words(t).filter((w, i) => !(i === 0 && convention === 'south_asia' && SOUTH_ASIAN_TITLE.test(w)));
  const full = kept.filter((w) => !isInitial(w));
  if (convention === 'portuguese' && full.length >= 3 && AGNOMEN.test(full[full.length - 1])) full.pop();
  // `Mevr. I. Kuijpers-Hendriks`, `J.P. van der Meer`: initials, then the surname with its
  // particles. (With its stop only: a lone capital may be a bold word OCR split, `J AMES`.)
  if (full.length >= 1 && isInitial(kept[0]) && kept[0].endsWith('.') && full.slice(0, -1).every((w) => SURNAME_GOES_ON.test(w))) {
    return { first: null, last: cleanName(full.join(' ')), confidence: 0.9, reason: `only initials of the given names: "${t}"` };
  }
  if (full.length < 2) return unsure(`one name word only: "${t}"`);
  // Labelled in Spanish, two words in capitals may be the surname then the given name, as registries
  // print them (`PENA ALEJANDRA`, `WHITAKER MEGAN`), or the other way (`LISA BRANDT`): a Spanish given
  // name says which; without one, the report does not.
  if ((convention === 'two_surnames' || convention === 'mexico') && full.length === 2 && kept.every(isCapitals) && !spanishGiven(full[0])) {
    if (!spanishGiven(full[1])) return unsure(`${FAMILY_NAME_FIRST}: "${t}"`);
    return { first: cleanName(full[1]), last: cleanName(full[0]), confidence: 0.85, reason: 'the surname first, then a given name' };
  }
  // A label that names the surname first (`Cognome e nome`, `Surname, first name`), or a report
  // printed in Vietnam (`NGUYỄN THỊ THU HÀ`: family name, middle names, the given name last).
  // (Printed in Italy, a name all in capitals follows the registry's `COGNOME NOME`: `DE LUCA ANTONIO`.)
  // (So in Greece: `ANTONIOU AIKATERINI`; and in Israel, as its hospitals print a name in capitals: `COHEN YAEL`.)
  if (surnameFirst || convention === 'vietnam' || (FAMILY_FIRST_IN_CAPITALS.includes(convention) && kept.every(isCapitals)))
    return surnameFirstName(full, convention);
  // Printed in Hong Kong, a name in capitals comes family name first, as the identity card prints it
  // (`CHAN TAI MAN`, `SINGH SITI`), and so do capitals before the given names (`AU YEUNG Chun Kit`).
  const hongKong = convention === 'hong_kong' ? hongKongFamilyWords(full) : 0;
  if (hongKong) return { first: cleanName(full.slice(hongKong).join(' ')), last: cleanName(full.slice(0, hongKong).join(' ')), confidence: 0.9, reason: null };
  // Printed in Poland, a name comes surname first (`SIKORA MARCIN STANISŁAW`, `Lewandowska Katarzyna`) or
  // given name first: the word that is a Polish given name says which, and without one the report does not.
  if (convention === 'poland' && full.length <= 3) {
    if (polishGiven(full[1]) && !polishGiven(full[0])) return familyNameFirst(full, 'surname first, as printed in Poland');
    if (!polishGiven(full[0]) || polishGiven(full[full.length - 1])) return unsure(`${FAMILY_NAME_FIRST}: "${t}"`);
  }
  // A family name that comes first, then given-name syllables only (`TAN MEI LING`): a Chinese
  // name. One that may come first before other words (`Lee Ann Smith`) is not split: nothing on
  // the report says which order its names follow, and a wrong name files results under another person.
  const chinese = chineseName(kept);
  if (chinese) return { first: cleanName(chinese.given), last: cleanName(chinese.family), confidence: 0.9, reason: null };
  // Printed in Korea, `Sung Min Hwang`: a given name of two syllables as two words, then the family name.
  if (convention === 'korea' && full.length === 3 && KOREAN_SURNAMES.has(full[2].toLowerCase()) && !KOREAN_SURNAMES.has(full[0].toLowerCase())) {
    return { first: cleanName(`${full[0]} ${full[1]}`), last: cleanName(full[2]), confidence: 0.9, reason: 'a Korean given name of two syllables' };
  }
  // Printed in Korea, a family name and a given name of two syllables joined by a hyphen, as the
  // Revised Romanization writes it (`Park Jae-hyun`): the family name first.
  if (convention === 'korea' && full.length === 2 && KOREAN_SURNAMES.has(full[0].toLowerCase()) && /^\p{L}+-\p{L}+$/u.test(full[1])) {
    return { first: cleanName(full[1]), last: cleanName(full[0]), confidence: 0.9, reason: 'family name first, as printed in Korea' };
  }
  // Printed in Korea, a name all in capitals that starts with a Korean family name is printed family
  // name first (`CHO HYUN-WOO`, `KIM MIN JUN`): the given name is the rest, its syllables as printed.
  if (
    convention === 'korea' &&
    full.length <= 3 &&
    full.every(isCapitals) &&
    KOREAN_SURNAMES.has(full[0].toLowerCase()) &&
    (!KOREAN_SURNAMES.has(full[full.length - 1].toLowerCase()) || !KOREAN_SURNAMES.has(full[1].toLowerCase()))
  ) {
    return { first: cleanName(full.slice(1).join(' ')), last: cleanName(full[0]), confidence: 0.9, reason: 'family name first, as printed in Korea' };
  }
  // Printed in Thailand, a surname of the royal lineage ends in `Na` and a place (`Apichat Snidvongs Na Ayudhya`).
  if (convention === 'thailand' && full.length >= 4 && /^na$/i.test(full[full.length - 2])) {
    return { first: cleanName(full[0]), last: cleanName(full.slice(-3).join(' ')), confidence: 0.9, reason: null };
  }
  // Printed in Turkey, every word before the surname is a given name (`Burak Ali YILDIZ`, `Ayşe Nur Kaya`);
  // printed in Malaysia, a Malay name without its `bin` has no surname: its given names, then the father's (`Siti Hajar Osman`).
  if (convention === 'turkey' || convention === 'malaysia') {
    const father = convention === 'malaysia' ? malayFatherStart(full) : full.length - 1;
    return {
      first: cleanName(full.slice(0, father).join(' ')),
      last: cleanName(full.slice(father).join(' ')),
      confidence: 0.9,
      reason: full.length > 2 ? `given names of two words, as ${convention === 'turkey' ? 'Turkish' : 'Malay'} names have` : null,
    };
  }
  // `OKONKWO Chukwuemeka Daniel`, `LEE Seo-yeon`: the one word in capitals among words that are
  // not is the family name, also when it stands first (West African, French and Korean forms print
  // it so; it says which word is the family name where the order alone would not). Last, it is the
  // family name anyway, read below with its particles (`Ludwig van BEETHOVEN`).
  const capitals = full.filter(isCapitals);
  if (capitals.length === 1 && capitals[0] !== full[full.length - 1] && full.some((w) => /\p{Ll}/u.test(w))) {
    const first = full.find((w) => !isCapitals(w))!;
    return { first: cleanName(first), last: cleanName(capitals[0]), confidence: 0.9, reason: null };
  }
  if (SURNAME_FIRST.has(full[0].toLowerCase())) return unsure(`${FAMILY_NAME_FIRST}: "${t}"`);
  const japaneseFirst = JAPANESE_SURNAMES.has(full[0].toLowerCase());
  // Printed in Japan, a name all in capitals follows the residence card (`DELA CRUZ MARICEL
  // SANTOS`: family name, given name, middle name), and one starting with a Japanese family name
  // is printed family name first (`Oshiro Juliana Akemi`). Elsewhere such a name may be either way.
  if (convention === 'japan' && (japaneseFirst || full.every(isCapitals))) return familyNameFirst(full);
  // (`SATO Hiroshi`: the family name in capitals before a given name that is not, read below.)
  const capitalsFirst = isCapitals(full[0]) && full.slice(1).every((w) => /\p{Ll}/u.test(w));
  if (japaneseFirst && !capitalsFirst) return unsure(`${FAMILY_NAME_FIRST}: "${t}"`);
  // Without a comma the last word is the surname, with the particles before it (`Anna van der Berg`);
  // more than one middle word left leaves room for a compound surname.
  let start = full.length - 1;
  while (start > 1 && SURNAME_GOES_ON.test(full[start - 1])) start -= 1;
  // `Ibarra Hernández Jesús`: both surnames first, as Mexican registries print them, when the last word is a given name and the first two are not.
  // (`DE LA GARZA GOMEZ GUADALUPE`: a surname's particles go with it.)
  const surnamesEnd = full.findIndex((_, i) => full.slice(0, i + 1).filter((w) => !PARTICLE.test(w)).length === 2) + 1;
  const [father, mother] = full.filter((w) => !PARTICLE.test(w));
  if (
    convention === 'mexico' &&
    surnamesEnd > 1 &&
    surnamesEnd < full.length &&
    spanishGiven(full[full.length - 1]) &&
    !spanishGiven(father) &&
    !spanishGiven(mother)
  ) {
    return {
      first: cleanName(full.slice(surnamesEnd).join(' ')),
      last: cleanName(full.slice(0, surnamesEnd).join(' ')),
      confidence: 0.85,
      reason: 'both surnames first, then the given names',
    };
  }
  if (start > 1 && (convention === 'two_surnames' || convention === 'mexico')) {
    const marian = marianGivenWords(full);
    if (marian > 0 && marian < full.length) {
      return { first: cleanName(full.slice(0, marian).join(' ')), last: cleanName(full.slice(marian).join(' ')), confidence: 0.85, reason: null };
    }
    // The mother's surname is the last word with its particles, the father's the one before it.
    let father = start - 1;
    while (father > 1 && PARTICLE.test(full[father - 1])) father -= 1;
    // In Mexico, `ROSA MARIA ORTIZ GUTIERREZ`, `Luis Enrique Castañeda Beltrán`: two words before the
    // two surnames are two given names, read as one (Mexican names have no middle name apart).
    if (convention === 'mexico' && father === 2) {
      return {
        first: cleanName(`${full[0]} ${full[1]}`),
        last: cleanName(full.slice(father).join(' ')),
        confidence: 0.85,
        reason: 'a compound given name, then two surnames',
      };
    }
    // `José Antonio Santiago`: a given name there is a second given name before one surname as
    // likely as a father's surname; which, the report does not say.
    if (father === 1 && spanishGiven(full[1])) {
      return { first: cleanName(full[0]), last: null, confidence: 0.9, reason: `${UNSPLIT_SURNAME}: "${t}"` };
    }
    return { first: cleanName(full[0]), last: cleanName(full.slice(father).join(' ')), confidence: 0.85, reason: 'two surnames, as Spanish names end' };
  }
  if (start > 1 && convention === 'unknown') {
    return { first: cleanName(full[0]), last: null, confidence: 0.95, reason: `${UNSPLIT_SURNAME}: "${t}"` };
  }
  // `Ana Paula Gomes Rodrigues`: a Brazilian given name of two words before the surnames.
  const compound = convention === 'portuguese' && start >= 2 ? brazilianCompoundGiven(full) : null;
  if (compound) return { first: cleanName(compound), last: cleanName(full.slice(start).join(' ')), confidence: 0.9, reason: null };
  // `Jose Miguel S. Reyes`, printed in the Philippines: the given names before the middle name.
  const filipino = convention === 'philippines' ? filipinoGivenNames(kept.slice(0, kept.length - (full.length - start))) : null;
  if (filipino) return { first: cleanName(filipino), last: cleanName(full.slice(start).join(' ')), confidence: 0.85, reason: null };
  const arabic = arabicGivenWords(full);
  if (arabic > 1 && arabic <= start) {
    const reason = arabic === start ? null : 'middle words taken as middle names';
    return { first: cleanName(full.slice(0, arabic).join(' ')), last: cleanName(full.slice(start).join(' ')), confidence: 0.85, reason };
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
 * A name printed surname first as its label or country says: the surname with its particles (`DE
 * LUCA ANNA MARIA`), then the given names — all of them in Italy, where `Nome` holds every given
 * name; the last word in Vietnam, where the words between are middle names; else the first.
 */
function surnameFirstName(full: string[], convention: NameConvention): ReadName {
  if (convention === 'vietnam')
    return { first: cleanName(full[full.length - 1]), last: cleanName(full[0]), confidence: 0.9, reason: 'family name first, as printed in Vietnam' };
  return familyNameFirst(full, 'surname first, as its label says', convention === 'italy');
}

/**
 * A name printed family name first (`INOUE SATOSHI`, `DELA CRUZ MARICEL SANTOS`): the family name
 * with its particles, then the given name. `italian`: every word after the family name, and the
 * Sicilian `Lo` and `Li` are particles too (`LI CAUSI GIUSEPPE`; elsewhere they are Chinese family names).
 */
function familyNameFirst(full: string[], reason = 'family name first, as printed in Japan', italian = false): ReadName {
  let given = 1;
  while (given < full.length - 1 && (PARTICLE.test(full[given - 1]) || (italian && /^(lo|li)$/i.test(full[given - 1])))) given += 1;
  const first = italian ? full.slice(given).join(' ') : full[given];
  return { first: cleanName(first), last: cleanName(full.slice(0, given).join(' ')), confidence: 0.9, reason };
}

/** A name, then whose son, daughter or wife the patient is (`S/O`, `D/O`, `W/O`, Malaysian `A/L`, `A/P`), or Malay `bin` / `binti`, then that elder's name. */
const RELATED = /^(.+?)\s+(s\/o|d\/o|w\/o|a\/l|a\/p|bin|binti|bte|bt\.)\s+(.+)$/i;

/**
 * `Hamza Hussain S/O Muhammad Iqbal`: the patient's own name is before the relation. A Malay name
 * (`AHMAD FAIZAL BIN MOHD YUSOF`) has no surname: every given name, then the father's name, is
 * how it is filed; so is a one-word name with its father's (`ARVIND S/O KRISHNAN`, `Vinod a/l Muniandy`).
 * A Gulf name's family name after the father's (`Mohammed bin Ali Al Mansoori`) is its surname.
 */
function relatedName(own: string, relation: string, elder: string, convention: NameConvention): ReadName {
  const given = words(own).filter((w) => !isInitial(w));
  const father = words(elder);
  if (!given.length || !father.length) return { first: null, last: null, confidence: 0, reason: `no name before "${relation}"` };
  if (/^(bin|binti|bte|bt\.)$/i.test(relation) || given.length === 1) {
    const family = /^(bin|binti)$/i.test(relation) ? arabicFamilyStart(father, convention === 'malaysia') : -1;
    return { first: cleanName(given.join(' ')), last: cleanName(father.slice(Math.max(0, family)).join(' ')), confidence: 0.9, reason: null };
  }
  return readName(given.join(' '), convention);
}
