/**
 * Epoch milliseconds to and from ISO 8601 text, for the tens of thousands of samples of one
 * ingestion request: `Date.parse` and `toISOString` cost most of a microsecond each (and a Date
 * object), and a batch's samples mostly share their day. Both functions answer exactly what the
 * Date built-ins answer; anything outside their quick form goes to the built-ins.
 */

const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from here on toISOString writes a six-digit year. */
const YEAR_10000_MS = 253_402_300_800_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
/** Where the digits of `YYYY-MM-DD` are. */
const DATE_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9];

// The last day each function met (one request's samples rarely span many).
let formatDayStart = Number.NaN;
let formatDayPrefix = '';
let parseDayText = '';
let parseDayMs = Number.NaN;

/** `new Date(ms).toISOString()` (`YYYY-MM-DDTHH:MM:SS.sssZ`). */
export function isoString(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= YEAR_10000_MS) return new Date(ms).toISOString();
  let timeOfDay = ms - formatDayStart;
  if (!(timeOfDay >= 0 && timeOfDay < DAY_MS)) {
    timeOfDay = ms % DAY_MS;
    formatDayStart = ms - timeOfDay;
    formatDayPrefix = new Date(formatDayStart).toISOString().slice(0, 11);
  }
  const hours = Math.floor(timeOfDay / 3_600_000);
  const minutes = Math.floor(timeOfDay / 60_000) % 60;
  const seconds = Math.floor(timeOfDay / 1000) % 60;
  return `${formatDayPrefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[timeOfDay % 1000]}Z`;
}

/**
 * `Date.parse(text)` when `text` is UTC time in the form phones send (`YYYY-MM-DDTHH:MM:SSZ` or
 * `YYYY-MM-DDTHH:MM:SS.sssZ`, hours 00-23); NaN for any other text, which the caller parses as
 * before. The day goes through Date.parse once (so its rules, e.g. about February 30, are
 * Date.parse's), the time of day is added to it.
 */
export function utcInstantMs(text: string): number {
  const length = text.length;
  if (length !== 20 && length !== 24) return Number.NaN;
  if (
    text.charCodeAt(4) !== 45 ||
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // - - T
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(length - 1) !== 90 || // : : Z
    (length === 24 && text.charCodeAt(19) !== 46) // .
  ) {
    return Number.NaN;
  }
  const hours = twoDigits(text, 11);
  const minutes = twoDigits(text, 14);
  const seconds = twoDigits(text, 17);
  if (!(hours <= 23 && minutes <= 59 && seconds <= 59)) return Number.NaN;
  let millis = 0;
  if (length === 24) {
    millis = digit(text, 20) * 100 + digit(text, 21) * 10 + digit(text, 22);
    if (!(millis >= 0)) return Number.NaN;
  }
  if (!text.startsWith(parseDayText) || parseDayText === '') {
    for (const at of DATE_DIGITS) if (!(digit(text, at) >= 0)) return Number.NaN;
    const day = text.slice(0, 10);
    const dayMs = Date.parse(`${day}T00:00:00Z`);
    if (Number.isNaN(dayMs)) return Number.NaN;
    parseDayText = day;
    parseDayMs = dayMs;
  }
  return parseDayMs + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + millis;
}

/** The digit at `at`, or NaN. */
function digit(text: string, at: number): number {
  const value = text.charCodeAt(at) - 48;
  return value >= 0 && value <= 9 ? value : Number.NaN;
}

function twoDigits(text: string, at: number): number {
  return digit(text, at) * 10 + digit(text, at + 1);
}
