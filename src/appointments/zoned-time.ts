/**
 * Wall-clock arithmetic in an IANA time zone, on the runtime's ICU time-zone database (Intl).
 * luxon is only a transitive dependency here (bullmq → cron-parser) without types, so it is not
 * imported; Intl gives the same tz rules, DST included.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

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

/** The zone's UTC offset (minutes, east positive) at an instant. */
export function offsetMinutes(utcMs: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(utcMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour % 24, parts.minute, parts.second);
  return Math.round((asUtc - Math.floor(utcMs / 1000) * 1000) / 60_000);
}

/** The instant at which the wall clock in `timeZone` shows `date` (YYYY-MM-DD) `hour`:`minute`. */
export function zonedToUtc(date: string, hour: number, minute: number, timeZone: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const wall = Date.UTC(y, m - 1, d, hour, minute);
  const first = wall - offsetMinutes(wall, timeZone) * 60_000;
  const second = offsetMinutes(first, timeZone);
  return wall - second * 60_000;
}

/** ISO 8601 with the zone's local offset, e.g. 2027-03-15T07:00:00-04:00. */
export function formatInZone(utcMs: number, timeZone: string): string {
  const offset = offsetMinutes(utcMs, timeZone);
  const local = new Date(utcMs + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Calendar date (YYYY-MM-DD) plus n days. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Day of week of a calendar date: 0 = Sunday. */
export function weekday(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d)).getUTCDay();
}

/** Today's calendar date in a zone. */
export function todayIn(timeZone: string, nowMs = Date.now()): string {
  return new Date(nowMs + offsetMinutes(nowMs, timeZone) * 60_000).toISOString().slice(0, 10);
}
