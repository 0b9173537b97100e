const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
  // Spanish abbreviations where they differ from the English (`12-ago-2025`).
  ene: 1,
  abr: 4,
  ago: 8,
  dic: 12,
  // French ones (`6 juil. 1976`, `12 févr. 2025`, `3 déc 2024`); juin and juillet apart by FRENCH_MONTHS.
  fév: 2,
  fev: 2,
  avr: 4,
  mai: 5,
  aoû: 8,
  aou: 8,
  déc: 12,
  // Italian ones (`16 gennaio 2025`, `3 ott 2024`).
  gen: 1,
  mag: 5,
  giu: 6,
  lug: 7,
  set: 9,
  ott: 10,
  // Dutch and German ones (`12 mrt 1957`, `3 mei 2024`, `7 okt. 2025`, `1. März 2025`, `24 dez 2024`).
  mrt: 3,
  maa: 3,
  mei: 5,
  okt: 10,
  mär: 3,
  dez: 12,
};
/** French months whose first three letters are another's or none (`juin`, `juillet`, `juil.`). */
const FRENCH_MONTHS: Record<string, number> = { juin: 6, juil: 7, juillet: 7 };

export type DayOrder = 'month_first' | 'day_first';

/** Three numbers parted by the same separator twice (`03/14/2026`, not a range such as `13.2-17.1`). */
const NUMERIC = /\b(\d{1,4})([/.-])(\d{1,2})\2(\d{2,4})\b/;
/** A month's name (French and German ones with their accents, `févr.`, `août`, `März`), with a zero OCR read for its O (`0ct`, `N0v`) and a bracket or bar for its J (`]uly`): letters and zeros, a letter among them. */
const MONTH_NAME = String.raw`((?=[\]|]?[A-Za-zéûäÉÛÄ0]*[A-Za-zéûäÉÛÄ])[\]|]?[A-Za-zéûäÉÛÄ0]{3,9})`;
/** `10/Jan/2025` as OCR reads it at times, the slash and the J run into one gap: `10 an/2025` (Jan, Jun, Jul). */
const LOST_SLASH_J = /\b(\d{1,2})\s+(an|un|ul)\/(\d{4})\b/;
/**
 * A day before a month's name, with its ordinal (`27th June, 1963`, `3rd of March 2025`) or without
 * (`14-Mar-2026`), and the year after it (OCR may lose the space before it: `17 Apr2025`).
 */
const NAMED_DAY_FIRST = new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?(?:[\s\-/.]+|(?=[\]|]))${MONTH_NAME}\.?[\s\-/.,]*(\d{4})\b`);
/** A day, a month's name and a two-digit year, parted by hyphens or slashes (`25-Feb-25`, as Bangladeshi and Indian systems print them). */
const NAMED_DAY_FIRST_SHORT_YEAR = new RegExp(String.raw`\b(\d{1,2})([-/])${MONTH_NAME}\2(\d{2})\b(?![:.]?\d)`);
/** Day, month and year run together as military and some hospital systems print them (`19JAN2011`, `03JUN2025 0700`). */
const COMPACT_DAY_FIRST = /\b(\d{1,2})([A-Z]{3})(\d{4})\b/;
// (`MAY 15,1989`: some systems print no space after the comma.)
const NAMED_MONTH_FIRST = new RegExp(String.raw`\b${MONTH_NAME}\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,\s*|\s+)(\d{4})\b`);
/** Year, month's name, day (`2025-MAR-12`): as ISO dates run, printed so that both languages of a bilingual report read it. */
const NAMED_YEAR_FIRST = new RegExp(String.raw`\b(\d{4})[\s\-/.]${MONTH_NAME}\.?[\s\-/.](\d{1,2})\b`);

/**
 * How a report's numeric dates are ordered, and whether it shows it: a date whose first part is
 * over 12 can only be day-first (one whose second part is, month-first), and a report prints all
 * its dates one way; dots (`14.03.2026`) are a day-first convention that month-first countries do
 * not print. Otherwise month-first, the US convention, not shown.
 */
export function dayOrderShown(texts: string[]): { order: DayOrder; shown: boolean } {
  let dotted = false;
  for (const text of texts) {
    const m = new RegExp(NUMERIC.source, 'g');
    for (let hit = m.exec(text); hit; hit = m.exec(text)) {
      if (hit[1].length > 2 || hit[4].length !== 4) continue;
      if (Number(hit[1]) > 12 && Number(hit[3]) <= 12) return { order: 'day_first', shown: true };
      if (Number(hit[3]) > 12) return { order: 'month_first', shown: true };
      if (hit[2] === '.') dotted = true;
    }
  }
  return dotted ? { order: 'day_first', shown: true } : { order: 'month_first', shown: false };
}

/** Whether `text`'s numeric date could be read either way round (both parts 12 or under, and unequal). */
export function ambiguousDayMonth(text: string): boolean {
  const numeric = NUMERIC.exec(text);
  return numeric !== null && numeric[1].length <= 2 && Number(numeric[1]) <= 12 && Number(numeric[3]) <= 12 && numeric[1] !== numeric[3];
}

/** Whether `text`'s date has a two-digit year. */
export function twoDigitYear(text: string): boolean {
  const numeric = NUMERIC.exec(text);
  return numeric !== null && numeric[1].length <= 2 && numeric[4].length === 2;
}

/** The first date in `text` as YYYY-MM-DD (2026-03-14, 03/14/2026, 14.03.2026, 14-Mar-2026, 14-Mar-26, 27th June, 1963, 2026-MAR-14, March 14, 2026, 14MAR2026). */
export function parseDate(printed: string, order: DayOrder): string | null {
  const text = printed.replace(LOST_SLASH_J, '$1/J$2/$3');
  // The first date printed is the one meant (`25-SEP-2004 (11/08/1425 H)`: the Hijri date beside
  // it is no Gregorian date), so each form's first hit is read, and the earliest that is a date wins.
  const read: { at: number; date: string | null }[] = [];
  const numeric = NUMERIC.exec(text);
  if (numeric) {
    const [a, b, c] = [numeric[1], numeric[3], numeric[4]];
    const year = c.length === 2 ? twoDigitYearOf(c) : Number(c);
    const date =
      a.length === 4 ? iso(Number(a), Number(b), Number(c)) : order === 'day_first' ? iso(year, Number(b), Number(a)) : iso(year, Number(a), Number(b));
    read.push({ at: numeric.index, date });
  }
  const yearFirst = NAMED_YEAR_FIRST.exec(text);
  if (yearFirst) read.push({ at: yearFirst.index, date: named(Number(yearFirst[1]), yearFirst[2], Number(yearFirst[3])) });
  const dayFirst = NAMED_DAY_FIRST.exec(text);
  if (dayFirst) read.push({ at: dayFirst.index, date: named(Number(dayFirst[3]), dayFirst[2], Number(dayFirst[1])) });
  const shortYear = NAMED_DAY_FIRST_SHORT_YEAR.exec(text);
  if (shortYear) read.push({ at: shortYear.index, date: named(twoDigitYearOf(shortYear[4]), shortYear[3], Number(shortYear[1])) });
  const compact = COMPACT_DAY_FIRST.exec(text);
  if (compact) read.push({ at: compact.index, date: named(Number(compact[3]), compact[2], Number(compact[1])) });
  const monthFirst = NAMED_MONTH_FIRST.exec(text);
  if (monthFirst) read.push({ at: monthFirst.index, date: named(Number(monthFirst[3]), monthFirst[1], Number(monthFirst[2])) });
  return read.filter((hit) => hit.date !== null).sort((x, y) => x.at - y.at)[0]?.date ?? null;
}

/** A two-digit year in the century it most likely is: 00-49 this one, 50-99 the last. */
function twoDigitYearOf(printed: string): number {
  return 1900 + Number(printed) + (Number(printed) < 50 ? 100 : 0);
}

function named(year: number, monthName: string, day: number): string | null {
  const month = monthNumber(monthName);
  return month ? iso(year, month, day) : null;
}

/**
 * The month a name or its abbreviation gives (`Sept`, `October`), read through OCR's zero for an
 * O (`0ct`) and a zero before the name (`0Oct`, its O read twice): no month name starts with a digit.
 */
function monthNumber(name: string): number | undefined {
  const month = (word: string) => FRENCH_MONTHS[word] ?? MONTHS[word.slice(0, word.startsWith('sept') ? 4 : 3)];
  // OCR reads a J as `]` or `|` (`1st]uly`), or puts one before it (`1st]July`).
  const lower = name
    .toLowerCase()
    .replace(/^[\]|](?=j)/, '')
    .replace(/^[\]|]/, 'j');
  return month(lower.replace(/0/g, 'o')) ?? month(lower.replace(/^0+/, '').replace(/0/g, 'o'));
}

/**
 * A calendar date as YYYY-MM-DD, or null when it is no date (31 February) or out of 1900-2100. A
 * year of the Buddhist Era, as Thai reports print them (2568 for 2025), is read in the Common Era.
 */
export function iso(printedYear: number, month: number, day: number): string | null {
  const year = printedYear >= BUDDHIST_ERA_FROM && printedYear <= BUDDHIST_ERA_TO ? printedYear - BUDDHIST_ERA_OFFSET : printedYear;
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1900 || year > 2100) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCDate() !== day) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Buddhist Era years (Thailand) that are Common Era 1900-2100, and how far ahead they run. */
const BUDDHIST_ERA_OFFSET = 543;
const BUDDHIST_ERA_FROM = 1900 + BUDDHIST_ERA_OFFSET;
const BUDDHIST_ERA_TO = 2100 + BUDDHIST_ERA_OFFSET;

/** A cell that is a date, and perhaps its time, and nothing else (`2025-Apr-15`, `04/15/2025 08:23`, `15 Apr 2025`, `15APR2025`). */
export const DATE_CELL =
  /^(\d{1,4}[-/.][A-Za-z0-9]{1,3}[-/.]\d{2,4}|\d{1,2} [A-Za-z]{3,9}\.? \d{4}|[A-Za-z]{3,9}\.? \d{1,2},? \d{4}|\d{1,2}[A-Z]{3}\d{4})( \d{1,2}:\d{2})?$/;
