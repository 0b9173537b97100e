import { ambiguousDayMonth, dayOrderShown, parseDate, twoDigitYear, type DayOrder } from './dates';
import { printedIn } from './printed-in';

/**
 * Which way round a report's numeric dates run (day or month first), from what the report
 * shows: its dates, its country, a birth date's printed age, the days from collection to report.
 * Used by ./metadata.ts.
 */

/** The report's own dates. */
export type DateField = 'dob' | 'date_collected' | 'date_reported';

/**
 * The day/month order for the report's dates: as the report shows it, else the one in which its
 * specimen was reported on or after the day it was collected, within a few weeks — when only one
 * order makes that so, or when one makes it days and the other weeks (`03/12` and `04/12`: a day
 * apart day first, a month apart month first); else month first (the US convention), not shown.
 */
export function dateOrder(texts: string[], dates: Partial<Record<DateField, { text: string }>>): DayOrderEvidence {
  const shown = dayOrderShown(texts);
  if (shown.shown) return shown;
  // Printed in a country that writes the day first (Britain's NHS, New Zealand's NHI, a lab's .nz address).
  if (texts.some((text) => IN_DAY_FIRST_COUNTRY.test(text))) return { order: 'day_first', shown: true };
  const byAge = orderByAge(dates);
  if (byAge) return { order: byAge, shown: true };
  if (!dates.date_collected || !dates.date_reported) return shown;
  /** Days from collection to report read in `order`, when that is on or after it within a month. */
  const turnaround = (order: DayOrder) => {
    const collected = parseDate(dates.date_collected?.text ?? '', order);
    const reported = parseDate(dates.date_reported?.text ?? '', order);
    if (!collected || !reported) return null;
    const days = (Date.parse(reported) - Date.parse(collected)) / 86_400_000;
    return days >= 0 && days <= 31 ? days : null;
  };
  const [monthFirst, dayFirst] = [turnaround('month_first'), turnaround('day_first')];
  if ((monthFirst === null) !== (dayFirst === null)) return { order: dayFirst !== null ? 'day_first' : 'month_first', shown: true };
  if (monthFirst !== null && dayFirst !== null && Math.min(monthFirst, dayFirst) <= WITHIN_DAYS && Math.max(monthFirst, dayFirst) > WITHIN_DAYS)
    return { order: dayFirst < monthFirst ? 'day_first' : 'month_first', shown: true };
  return shown;
}

/**
 * A report printed where dates run day first: Britain's National Health Service (`NHS number`,
 * `Kingsmead Hospitals NHS Foundation Trust`) and New Zealand's National Health Index (`NHI`); a
 * lab accredited by the UK's, New Zealand's, Australia's, India's, South Africa's or Ireland's body
 * (UKAS, IANZ, NATA, NABL, SANAS, INAB); an address or web site in one of those countries or in
 * another of the Commonwealth's that write the day first (Sri Lanka, Trinidad and Tobago, Jamaica,
 * Barbados, Singapore, Malaysia, Kenya, Nigeria, Ghana, Pakistan, Bangladesh, Hong Kong; and
 * Thailand); or in continental Europe, Latin
 * America or Israel, which write it first too (an Italian hospital's `.it` address; not `.no` or `.at`,
 * which abbreviations run together with a stop print too: `Acc.no`).
 */
const IN_DAY_FIRST_COUNTRY = printedIn(
  'New Zealand|Australia|United Kingdom|South Africa|Ireland|India|Sri Lanka|Trinidad|Tobago|Jamaica|Barbados|Singapore|Malaysia|Kenya|Nigeria|Ghana|Pakistan|Egypt|Hong Kong|Thailand|Bangladesh|' +
    'Italia|Italy|Deutschland|Germany|France|España|Spain|Portugal|Brasil|Brazil|Polska|Poland|Nederland|Netherlands|Sverige|Sweden|Danmark|Denmark|Israel',
  String.raw`\b(NHS|NHI|UKAS|IANZ|NATA|NABL|SANAS|INAB|EGAC)\b|\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(nz|au|uk|ie|za|in|lk|tt|jm|bb|sg|my|ke|ng|gh|pk|eg|hk|th|bd|it|de|fr|es|pt|br|pl|nl|be|gr|se|dk|fi|ch|il)\b`,
);
/** What a line prints after a numeric birth date. */
const AFTER_NUMERIC_DATE = /\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b(.*)$/;
/** An age printed after a birth date (`12/01/1957 (68y)`, `03/04/1961 - 63 yrs`, `(Age: 63)`, `(63)`). */
const AGE = /\bage\s*:?\s*(\d{1,3})\b|\b(\d{1,3})\s*(?:y|yr|yrs|years?)\b|\(\s*(\d{1,3})\s*\)/i;

/**
 * The day/month order in which the birth date gives the age printed beside it on the day the
 * sample was collected (or the report made), when only one order does (`12/01/1957 (68y)` on 27 Feb
 * 2025: 12 January, as 1 December would be 67).
 */
function orderByAge(dates: Partial<Record<DateField, { text: string }>>): DayOrder | null {
  const dob = dates.dob?.text;
  const on = dates.date_collected?.text ?? dates.date_reported?.text;
  const printed = dob ? AGE.exec(AFTER_NUMERIC_DATE.exec(dob)?.[1] ?? '') : null;
  if (!dob || !on || !printed || !ambiguousDayMonth(dob)) return null;
  const age = Number(printed[1] ?? printed[2] ?? printed[3]);
  const fits = (['month_first', 'day_first'] as const).filter((order) => {
    const born = parseDate(dob, order);
    const day = parseDate(on, order);
    return born !== null && day !== null && yearsBetween(born, day) === age;
  });
  return fits.length === 1 ? fits[0] : null;
}

/** Whole years from one YYYY-MM-DD date to another (an age). */
function yearsBetween(from: string, to: string): number {
  const years = Number(to.slice(0, 4)) - Number(from.slice(0, 4));
  return to.slice(5) < from.slice(5) ? years - 1 : years;
}

/** A lab reports within days of the collection: the order that puts the report within this many days, when the other puts it weeks later, is the report's. */
const WITHIN_DAYS = 7;

export interface DayOrderEvidence {
  order: DayOrder;
  /** Whether something on the report showed the order, rather than the US default being assumed. */
  shown: boolean;
}

/** A date, with less confidence when its day and month could be either way round and nothing on the report says which. */
export function readDate(text: string, { order, shown }: DayOrderEvidence): { value: string | null; confidence: number; reason: string | null } {
  const value = parseDate(text, order);
  if (!value) return { value: null, confidence: 0, reason: `no date in "${text.slice(0, 40)}"` };
  if (ambiguousDayMonth(text) && !shown)
    return { value, confidence: 0.75, reason: 'day and month read month first (US), as nothing on the report shows the order' };
  if (twoDigitYear(text)) return { value, confidence: 0.7, reason: 'two-digit year' };
  return { value, confidence: 0.97, reason: null };
}
