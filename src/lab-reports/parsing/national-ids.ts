import { iso } from './dates';
import { PARTICLE } from './name-words';

/**
 * Personal identity numbers that carry the holder's birth date (and some their sex), read where a
 * report prints no birth date of its own. Each number's check digit is verified where it has one,
 * so a value that only looks like one (an order number under the wrong label) gives nothing.
 * Written here rather than taken from a library: each scheme is a few lines, and the packages that
 * exist cover one country each. Used by ./metadata.ts.
 */

export type NationalIdScheme = 'cpr' | 'personnummer' | 'pesel' | 'curp' | 'amka' | 'chi' | 'nic' | 'mykad';

export interface NationalIdReading {
  dob: string | null;
  sex: 'male' | 'female' | null;
}

/**
 * The birth date (YYYY-MM-DD) and sex a personal identity number gives. `printedInYear`: the year
 * of the report; a two-digit year's century counts back from it where the number does not say.
 */
export function readNationalId(scheme: NationalIdScheme, text: string, printedInYear: number): NationalIdReading | null {
  switch (scheme) {
    case 'cpr':
      return withoutSex(cprBirthDate(text));
    case 'personnummer':
      return withoutSex(personnummerBirthDate(text, printedInYear));
    case 'pesel':
      return pesel(text);
    case 'curp':
      return curp(text);
    case 'amka':
      return withoutSex(amkaBirthDate(text, printedInYear));
    case 'chi':
      return chi(text, printedInYear);
    case 'nic':
      return nic(text);
    case 'mykad':
      return mykad(text, printedInYear);
  }
}

/** The first run of exactly `length` digits in `text`, spaces inside it ignored (`091156 8867`), as numbers. */
function digitRun(text: string, length: number): number[] | null {
  const run = new RegExp(`(?<!\\d)(\\d{${length}})(?!\\d)`).exec(text.replace(/\s+/g, ''));
  return run ? [...run[1]].map(Number) : null;
}

const withoutSex = (dob: string | null): NationalIdReading | null => (dob ? { dob, sex: null } : null);

/** The most recent year ending in `yy` that is not after `printedInYear`. */
function lastCentury(yy: number, printedInYear: number): number {
  const year = Math.floor(printedInYear / 100) * 100 + yy;
  return year > printedInYear ? year - 100 : year;
}

/**
 * Swedish personnummer, `19461020-1234` or `461020-1234`, yymmdd first; `+` for the dash at 100
 * years of age or more.
 */
function personnummerBirthDate(text: string, printedInYear: number): string | null {
  const id = /\b(\d{6}|\d{8})\s*([-+])\s*\d{4}\b/.exec(text);
  if (!id) return null;
  const [digits, sign] = [id[1], id[2]];
  if (digits.length === 8) return iso(Number(digits.slice(0, 4)), Number(digits.slice(4, 6)), Number(digits.slice(6, 8)));
  const year = lastCentury(Number(digits.slice(0, 2)), printedInYear) - (sign === '+' ? 100 : 0);
  return iso(year, Number(digits.slice(2, 4)), Number(digits.slice(4, 6)));
}

/**
 * Danish CPR, `201046-1743`, ddmmyy first; the serial's first digit gives the century with the
 * year (0-3: 1900s; 4 and 9: 2000s to 36, else 1900s; 5-8: 2000s to 57, else 1800s).
 */
function cprBirthDate(text: string): string | null {
  const id = /\b(\d{6})\s*-\s*(\d{4})\b/.exec(text);
  if (!id) return null;
  const [digits, serial] = [id[1], id[2]];
  const yy = Number(digits.slice(4, 6));
  const first = Number(serial[0]);
  const century = first <= 3 ? 1900 : first === 4 || first === 9 ? (yy <= 36 ? 2000 : 1900) : yy <= 57 ? 2000 : 1800;
  return iso(century + yy, Number(digits.slice(2, 4)), Number(digits.slice(0, 2)));
}

/**
 * Polish PESEL, eleven digits: yymmdd with the century added to the month (+80 for the 1800s, +20
 * for the 2000s), a serial whose last digit is odd for men, a check digit.
 */
function pesel(text: string): NationalIdReading | null {
  const d = digitRun(text, 11);
  if (!d) return null;
  const sum = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3].reduce((total, weight, i) => total + weight * d[i], 0);
  if ((10 - (sum % 10)) % 10 !== d[10]) return null;
  const coded = d[2] * 10 + d[3];
  const centuries: [number, number][] = [
    [80, 1800],
    [60, 2200],
    [40, 2100],
    [20, 2000],
    [0, 1900],
  ];
  const [offset, century] = centuries.find(([from]) => coded > from)!;
  const dob = iso(century + d[0] * 10 + d[1], coded - offset, d[4] * 10 + d[5]);
  return dob ? { dob, sex: d[9] % 2 === 1 ? 'male' : 'female' } : null;
}

/**
 * Mexican CURP, eighteen characters: four letters of the name, yymmdd, `H` (hombre) or `M` (mujer),
 * the state, three consonants, a character that is a digit for births before 2000 and a letter
 * after, a check digit.
 */
function curp(text: string): NationalIdReading | null {
  const id = validCurp(text);
  if (!id) return null;
  const century = /\d/.test(id[6]) ? 1900 : 2000;
  const dob = iso(century + Number(id[2]), Number(id[3]), Number(id[4]));
  return dob ? { dob, sex: id[5] === 'H' ? 'male' : 'female' } : null;
}

/** The name's four letters a CURP begins with: the father's surname's first letter and first inner vowel, the mother's first letter (`X` for none), the given name's first letter. */
export function curpNameLetters(text: string): string | null {
  return validCurp(text)?.[1] ?? null;
}

/**
 * The given name a CURP takes its letter from: the first, or the next one when the first is María
 * or José and another follows (`MARIA DE LOS ANGELES`: Angeles), its particles skipped.
 */
export function curpGivenName(given: string): string {
  const words = given.split(/\s+/).filter(Boolean);
  const rest = /^(mar[ií]a|ma\.?|jos[eé]|j\.?)$/i.test(words[0] ?? '') ? words.slice(1).filter((w) => !PARTICLE.test(w) && !/^y$/i.test(w)) : [];
  return rest[0] ?? words[0] ?? '';
}

/** A CURP in `text` whose check digit holds: its name letters, yy, mm, dd, sex, century character, check digit. */
function validCurp(text: string): RegExpExecArray | null {
  const id = /\b([A-Z][AEIOUX][A-Z]{2})(\d{2})(\d{2})(\d{2})([HM])[A-Z]{2}[A-Z]{3}([0-9A-Z])(\d)\b/.exec(text.toUpperCase());
  return id && curpCheckDigit(id[0]) === Number(id[7]) ? id : null;
}

const CURP_ALPHABET = '0123456789ABCDEFGHIJKLMNÑOPQRSTUVWXYZ';

function curpCheckDigit(id: string): number {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += CURP_ALPHABET.indexOf(id[i]) * (18 - i);
  return (10 - (sum % 10)) % 10;
}

/** Greek AMKA, eleven digits: ddmmyy, four digits, a Luhn check digit. */
function amkaBirthDate(text: string, printedInYear: number): string | null {
  const d = digitRun(text, 11);
  if (!d || !luhn(d)) return null;
  return iso(lastCentury(d[4] * 10 + d[5], printedInYear), d[2] * 10 + d[3], d[0] * 10 + d[1]);
}

function luhn(digits: number[]): boolean {
  let sum = 0;
  [...digits].reverse().forEach((digit, i) => {
    const d = digit * (i % 2 === 1 ? 2 : 1);
    sum += d > 9 ? d - 9 : d;
  });
  return sum % 10 === 0;
}

/**
 * Scottish CHI number, ten digits: ddmmyy, two digits, a ninth that is odd for men, a mod-11 check
 * digit (weights 10 to 2).
 */
function chi(text: string, printedInYear: number): NationalIdReading | null {
  const d = digitRun(text, 10);
  if (!d) return null;
  const remainder = d.slice(0, 9).reduce((total, digit, i) => total + digit * (10 - i), 0) % 11;
  const check = remainder === 0 ? 0 : 11 - remainder;
  if (check === 10 || check !== d[9]) return null;
  const dob = iso(lastCentury(d[4] * 10 + d[5], printedInYear), d[2] * 10 + d[3], d[0] * 10 + d[1]);
  return dob ? { dob, sex: d[8] % 2 === 1 ? 'male' : 'female' } : null;
}

/**
 * Sri Lankan National Identity Card number: `885221868V` (yy, the day of the year, four digits, V
 * or X) or `198852201868` (yyyy, the day, five digits); the day is over 500 for women, and counts
 * every year as a leap year.
 */
function nic(text: string): NationalIdReading | null {
  const id = /\b(?:(\d{2})(\d{3})\d{4}[VX]|(\d{4})(\d{3})\d{5})\b/i.exec(text.replace(/\s+/g, ''));
  if (!id) return null;
  const year = id[1] ? 1900 + Number(id[1]) : Number(id[3]);
  const coded = Number(id[2] ?? id[4]);
  const sex = coded > 500 ? 'female' : 'male';
  let day = coded > 500 ? coded - 500 : coded;
  let month = 0;
  while (month < 12 && day > LEAP_MONTH_DAYS[month]) day -= LEAP_MONTH_DAYS[month++];
  const dob = month < 12 ? iso(year, month + 1, day) : null;
  return dob ? { dob, sex } : null;
}

const LEAP_MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Malaysian MyKad (NRIC), twelve digits, `YYMMDD-PB-###G` with or without its dashes: the birth
 * date, the place of birth's code (01-16, 21-59, 60-99 for births abroad), and a last digit odd for
 * men and even for women. It has no check digit: the birth date must be a date and the place a code.
 */
function mykad(text: string, printedInYear: number): NationalIdReading | null {
  const id = /(?<!\d)(\d{6})-?(\d{2})-?(\d{4})(?!\d)/.exec(text);
  if (!id || Number(id[2]) === 0 || Number(id[2]) > 99) return null;
  const d = id[1];
  const dob = iso(lastCentury(Number(d.slice(0, 2)), printedInYear), Number(d.slice(2, 4)), Number(d.slice(4, 6)));
  return dob ? { dob, sex: Number(id[3][3]) % 2 === 1 ? 'male' : 'female' } : null;
}
