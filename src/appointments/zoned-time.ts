/**
 * Wall-clock arithmetic in an IANA time zone, on the runtime's ICU time-zone database (Intl).
 * luxon is only a transitive dependency here (bullmq → cron-parser) without types, so it is not
 * imported; Intl gives the same tz rules, DST included.
 *
 * Intl is slow (a formatToParts call costs microseconds and allocates), and availability asks for
 * thousands of offsets per answer, so offsets are remembered per zone and UTC hour: an hour whose
 * first and last second have the same offset has it throughout (a zone never changes its offset
 * twice within an hour). An hour with a transition in it is never remembered; every instant in it
 * asks Intl, as before.
 */

const HOUR_MS = 3_600_000;
/** Remembered hours per zone (~11 years); the zone's memory starts over beyond it. */
const MAX_REMEMBERED_HOURS = 100_000;
/** Marks an hour with a transition in it. */
const MIXED = Number.NaN;

const formatters = new Map<string, Intl.DateTimeFormat>();
const hourlyOffsets = new Map<string, Map<number, number>>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, found);
  }
  return found;
}

/** The zone's UTC offset at an instant, straight from Intl. */
function intlOffsetMinutes(utcMs: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(utcMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour % 24, parts.minute, parts.second);
  return Math.round((asUtc - Math.floor(utcMs / 1000) * 1000) / 60_000);
}

/** The zone's UTC offset (minutes, east positive) at an instant. */
export function offsetMinutes(utcMs: number, timeZone: string): number {
  let hours = hourlyOffsets.get(timeZone);
  if (!hours) {
    hours = new Map();
    hourlyOffsets.set(timeZone, hours);
  }
  const hour = Math.floor(utcMs / HOUR_MS);
  let offset = hours.get(hour);
  if (offset === undefined) {
    const first = intlOffsetMinutes(hour * HOUR_MS, timeZone);
    offset = intlOffsetMinutes(hour * HOUR_MS + HOUR_MS - 1000, timeZone) === first ? first : MIXED;
    if (hours.size >= MAX_REMEMBERED_HOURS) hours.clear();
    hours.set(hour, offset);
  }
  return Number.isNaN(offset) ? intlOffsetMinutes(utcMs, timeZone) : offset;
}

/** The instant at which the wall clock in `timeZone` shows `wallMs` (a wall-clock time written as if it were UTC). */
export function wallToUtc(wallMs: number, timeZone: string): number {
  const first = wallMs - offsetMinutes(wallMs, timeZone) * 60_000;
  const second = offsetMinutes(first, timeZone);
  return wallMs - second * 60_000;
}

/** The instant at which the wall clock in `timeZone` shows `date` (YYYY-MM-DD) `hour`:`minute`. */
export function zonedToUtc(date: string, hour: number, minute: number, timeZone: string): number {
  return wallToUtc(dateToUtcMs(date) + hour * HOUR_MS + minute * 60_000, timeZone);
}

/** ±HH:MM for an offset in minutes. */
const offsetSuffixes = new Map<number, string>();
function offsetSuffix(offset: number): string {
  let suffix = offsetSuffixes.get(offset);
  if (suffix === undefined) {
    const abs = Math.abs(offset);
    suffix = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    offsetSuffixes.set(offset, suffix);
  }
  return suffix;
}

/** Recently formatted instants per zone (slot grids format the same instants over and over). */
const formatted = new Map<string, Map<number, string>>();
const MAX_REMEMBERED_INSTANTS = 50_000;

/** ISO 8601 with the zone's local offset, e.g. 2027-03-15T07:00:00-04:00. */
export function formatInZone(utcMs: number, timeZone: string): string {
  let instants = formatted.get(timeZone);
  if (!instants) {
    instants = new Map();
    formatted.set(timeZone, instants);
  }
  let text = instants.get(utcMs);
  if (text === undefined) {
    const offset = offsetMinutes(utcMs, timeZone);
    text = new Date(utcMs + offset * 60_000).toISOString().slice(0, 19) + offsetSuffix(offset);
    if (instants.size >= MAX_REMEMBERED_INSTANTS) instants.clear();
    instants.set(utcMs, text);
  }
  return text;
}

/** Midnight UTC of a calendar date (YYYY-MM-DD). */
export function dateToUtcMs(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return Date.UTC(y, m - 1, d);
}

/** Calendar date (YYYY-MM-DD) plus n days. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Day of week of a calendar date: 0 = Sunday. */
export function weekday(date: string): number {
  return new Date(dateToUtcMs(date)).getUTCDay();
}

/** Today's calendar date in a zone. */
export function todayIn(timeZone: string, nowMs = Date.now()): string {
  return new Date(nowMs + offsetMinutes(nowMs, timeZone) * 60_000).toISOString().slice(0, 10);
}
