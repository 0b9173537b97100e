import type { Line } from './layout';
import { withoutAccents } from './labels';
import type { NameConvention } from './names';
import { printedIn } from './printed-in';

/** Which country's way of printing names a report follows, told by its address or its labels, and values printed in two scripts. Used by ./metadata.ts. */

/** Spanish labels of a patient block (`Paciente / Patient`, `Fecha de nacimiento`). */
const SPANISH_LABELS = /\b(paciente|nombre|apellidos?|fecha de nacimiento|sexo|m[ée]dico)\b/i;
/** Labels only Portuguese has (Spanish says `fecha de nacimiento`, `edad`, `examen`, and `convenio` without the circumflex; both say `solicitante`). */
const PORTUGUESE_LABELS = /\b(data de nascimento|idade|exames?|laudo|convênio|nome)\b/i;
/**
 * How the report's country prints names, told by its address or its labels: printed in Japan or
 * Vietnam, family name first; in Korea, a two-syllable given name before the family name; in
 * Italy, `Nome` holds every given name and the registry's capitals put the surname first; in
 * Turkey, every word before the surname is a given name; in Greece, names in capitals come surname
 * first; in Mexico (a CURP), the two surnames may come first and two given names are one; in
 * Thailand, a surname may end in `Na` and a place (`Snidvongs Na Ayudhya`); in Malaysia, every
 * word before the last is a given name (a Malay name has no surname); in Israel, names in
 * capitals come family name first; in Poland, the given name's place tells the order; in the
 * Philippines, given names before a middle name; in Hong Kong, the family name first in capitals; in South Asia, `Sri` a title; labelled in Portuguese or printed in Brazil, the mother's
 * surname before the father's and given names of two words (`Maria Eduarda`); labelled in
 * Spanish, two surnames at the end; another bilingual report, an order not told (`unknown`); else
 * middle names.
 */
export function nameConvention(firstPage: Line[], bilingual: boolean): NameConvention {
  const printed = (re: RegExp, plain = false) => firstPage.some((l) => re.test(plain ? withoutAccents(l.text) : l.text));
  if (printed(IN_JAPAN)) return 'japan';
  if (printed(IN_KOREA)) return 'korea';
  if (printed(IN_HONG_KONG)) return 'hong_kong';
  if (printed(VIETNAMESE_LABELS, true)) return 'vietnam';
  if (printed(ITALIAN_LABELS)) return 'italy';
  if (printed(TURKISH_LABELS, true)) return 'turkey';
  if (printed(GREEK_LABELS, true)) return 'greece';
  if (printed(MEXICAN_LABELS) || printed(IN_MEXICO)) return 'mexico';
  if (printed(IN_THAILAND)) return 'thailand';
  if (printed(IN_MALAYSIA)) return 'malaysia';
  if (printed(IN_ISRAEL)) return 'israel';
  if (printed(IN_POLAND)) return 'poland';
  if (printed(IN_PHILIPPINES)) return 'philippines';
  if (printed(IN_SOUTH_ASIA)) return 'south_asia';
  if (printed(PORTUGUESE_LABELS) || printed(IN_BRAZIL)) return 'portuguese';
  if (!bilingual) return 'middle_names';
  return printed(SPANISH_LABELS) ? 'two_surnames' : 'unknown';
}

/** Printed in Poland: its address, a PESEL, a doctor's licence (`NPWZ`), a laboratory's register entry (`KRDL`), a `.pl` address or the country code. */
const IN_POLAND = printedIn('Polska|Poland|Kraków|Warszawa|Wrocław|Poznań|Gdańsk|Łódź', String.raw`\bPESEL\b|\bNPWZ\b|\bKRDL\b|\.pl\b|\+48[-\s]\d`);
/**
 * Printed in Brazil, whatever the language of its labels (a certified English translation): its
 * address, a taxpayer number (`CPF`), a health-establishment number (`CNES`), a doctor's council
 * registration (`CRM-SP`) or a phone number's country code.
 */
const IN_BRAZIL = printedIn('Brazil|Brasil|São Paulo|Rio de Janeiro|Belo Horizonte', String.raw`\bCPF\b|\bCNES\b|\bCRM-[A-Z]{2}\b|\+55[-\s]\d`);
/** Where a given name's own label holds every given name (`Nome: MARIA TERESA`, `Nombre(s): JOSE MANUEL`, `Adı: AYŞE NAZ`), not a first and a middle one. */
export const ALL_GIVEN_NAMES: NameConvention[] = ['italy', 'mexico', 'turkey'];
/** Printed in Hong Kong: its name or Kowloon, an identity card number's label (`HKID`), or the phone numbers' country code. */
const IN_HONG_KONG = printedIn('Hong Kong|Kowloon', String.raw`\bHKID\b|\+852[-\s]?\d|\(852\)`);
/** Printed in Bangladesh, India or Nepal: its country or a capital, or a phone number's country code. */
const IN_SOUTH_ASIA = printedIn(
  'Bangladesh|India|Nepal|Dhaka|Chattogram|Kolkata|Mumbai|New Delhi|Chennai|Bengaluru|Kathmandu',
  String.raw`\+880[-\s]?\d|\+91[-\s]?\d|\+977[-\s]?\d`,
);
/** Printed in the Philippines: its address, the national health insurer (`PhilHealth`), a DOH licence or the country code. */
const IN_PHILIPPINES = printedIn('Philippines|Manila|Quezon City|Makati|Cebu|Davao', String.raw`\bPhilHealth\b|\bDOH License\b|\+63[-\s]\d`);
/** Labels printed in Greek (`Επώνυμο`, `Ονοματεπώνυμο`, `Πατρώνυμο`, `ΑΜΚΑ`), read with their accents dropped. */
const GREEK_LABELS = /(^|[^\p{L}])(επωνυμο|ονοματεπωνυμο|πατρωνυμο|αμκα)(?![\p{L}])/iu;
/** A Mexican report: the patient's CURP. */
const MEXICAN_LABELS = /\bCURP\b/;
/**
 * Printed in Mexico: a city, the country with its accent (not the US state), a professional licence
 * (`Céd. Prof.`), a chemist's `Q.F.B.`, the health regulator, or the phone numbers' country code.
 */
const IN_MEXICO = printedIn('México|CDMX|Tijuana|Guadalajara|Monterrey|Puebla', String.raw`\bC[ée]d\.?\s*Prof\b|\bQ\.F\.B\.|\bCOFEPRIS\b|\+52[-\s]?\d`);
/**
 * A value printed in two scripts, parted by a slash (`ΠΑΠΑΔΑΚΗΣ / PAPADAKIS`, `Θήλυ / Female`): its
 * Latin half, as a passport and the user's demographics spell it; any other value as printed. OCR
 * reads Greek capitals whose every letter has a Latin look-alike as Latin ones (`BAZIAEIOZ /
 * VASILEIOS` for `ΒΑΣΙΛΕΙΟΣ / VASILEIOS`): of two Latin halves, one all of such capitals beside one
 * with letters Greek has no look-alike of is read as the Greek half.
 */
export function inLatinLetters(value: string): string {
  const halves = value.split(/\s+\/\s+/);
  if (halves.length !== 2) return value;
  const latin = (text: string) => /^[\p{Script=Latin}\s.,'-]+$/u.test(text) && /\p{L}/u.test(text);
  const other = (text: string) => /\p{L}/u.test(text) && !/\p{Script=Latin}/u.test(text);
  if (latin(halves[1]) && other(halves[0])) return halves[1];
  if (latin(halves[0]) && other(halves[1])) return halves[0];
  const lookalike = (text: string) => /^[ABEZHIKMNOPTYX\s.'-]{3,}$/.test(text.trim());
  const plainLatin = (text: string) => latin(text) && !lookalike(text) && /\p{L}{3}/u.test(text);
  if (lookalike(halves[0]) && plainLatin(halves[1])) return halves[1];
  if (lookalike(halves[1]) && plainLatin(halves[0])) return halves[0];
  return value;
}

/** Labels only Italian has (`Cognome`, `Codice fiscale`, `Nato/a`, `Data prelievo`, `Sesso`). */
const ITALIAN_LABELS = /\b(cognome|codice fiscale|data di nascita|nato\/a|luogo di nascita|data (del )?prelievo|sesso)\b/i;
/** Labels printed in Turkish (`Adı Soyadı`, `Cinsiyet`, `Doğum Tarihi`), read with their accents dropped (withoutAccents) as OCR may. */
const TURKISH_LABELS = /(^|[^\p{L}])(adi soyadi|soyadi|cinsiyet|dogum tarihi|dogum t\.)(?![\p{L}])/iu;
/** Labels printed in Vietnamese (`Họ và tên`, `Giới tính`, `Ngày sinh`), read with their accents dropped. */
const VIETNAMESE_LABELS = /(^|[^\p{L}])(ho va ten|ho ten|gioi tinh|ngay sinh)(?![\p{L}])/iu;
/** A report printed in Japan: its address or telephone number. */
const IN_JAPAN = printedIn('Japan', String.raw`\+81[-\s]\d`);
/** Printed in Thailand: its address, its phone numbers' country code, or a Buddhist Era date's `B.E.`. */
const IN_THAILAND = printedIn('Thailand', String.raw`\+66[-\s]\d|\bB\.E\.`);
/** Printed in Malaysia: its address or its phone numbers' country code. */
const IN_MALAYSIA = printedIn('Malaysia|Kuala Lumpur', String.raw`\+60[-\s]\d`);
/**
 * Printed in Israel: its address or phone numbers' country code, the Teudat Zehut (`T.Z.`), or a
 * health fund (kupat holim) by name.
 */
const IN_ISRAEL = printedIn(
  'Israel',
  String.raw`\+972[-\s]\d|\b(?:Tel Aviv|Jerusalem|Haifa|Beersheba)\b|\bT\.Z\.|\bTeudat Zehut\b|\bKupah\b|\b(?:Clalit|Maccabi|Meuhedet|Leumit)\b`,
);
/** Printed in Korea: its address or its phone numbers' country code. */
const IN_KOREA = printedIn('Republic of Korea|South Korea|Korea', String.raw`\+82[-\s]\d`);
