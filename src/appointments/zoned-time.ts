import { IANAZone } from 'luxon';

/**
 * Wall-clock arithmetic in an IANA time zone: offsets are luxon's (`IANAZone`, on the runtime's
 * ICU time-zone database through Intl); the rest is plain UTC calendar arithmetic.
 *
 * Intl is slow (a formatToParts call costs microseconds and allocates), and availability asks for
 * thousands of offsets per answer, so offsets are remembered per zone and UTC hour: an hour whose
 * first and last second have the same offset has it throughout (a zone never changes its offset
 * twice within an hour). An hour with a transition in it is never remembered; every instant in it
 * asks luxon.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Remembered hours per zone (~11 years); the zone's memory starts over beyond it. */
const MAX_REMEMBERED_HOURS = 100_000;
/** Marks an hour with a transition in it. */
const MIXED = Number.NaN;

const zones = new Map<string, IANAZone>();
const hourlyOffsets = new Map<string, Map<number, number>>();

function zone(timeZone: string): IANAZone {
  let found = zones.get(timeZone);
  if (!found) {
    found = IANAZone.create(timeZone);
    // luxon answers NaN offsets for a zone it cannot load; refuse it as Intl does.
    if (!found.isValid) throw new RangeError(`Invalid time zone specified: ${timeZone}`);
    zones.set(timeZone, found);
  }
  return found;
}

/** The zone's UTC offset (minutes, east positive) at an instant. */
export function offsetMinutes(utcMs: number, timeZone: string): number {
  const tz = zone(timeZone);
  let hours = hourlyOffsets.get(timeZone);
  if (!hours) {
    hours = new Map();
    hourlyOffsets.set(timeZone, hours);
  }
  const hour = Math.floor(utcMs / HOUR_MS);
  let offset = hours.get(hour);
  if (offset === undefined) {
    const first = tz.offset(hour * HOUR_MS);
    offset = tz.offset(hour * HOUR_MS + HOUR_MS - 1000) === first ? first : MIXED;
    if (hours.size >= MAX_REMEMBERED_HOURS) hours.clear();
    hours.set(hour, offset);
  }
  return Number.isNaN(offset) ? tz.offset(utcMs) : offset;
}

/**
 * The instant at which the wall clock in `timeZone` shows `wallMs` (a wall-clock time written as
 * if it were UTC). A wall-clock time a transition skips or repeats is read with the offset in
 * force just before the transition:
 *
 * - in a gap (the clock springs forward; New York's 02:30 on 2027-03-14 never shows) it moves
 *   forward by the gap's length: 03:30 EDT, 07:30Z, as luxon, java.time and Temporal's
 *   `compatible` do. An hour of slots across the gap thus keeps its length and its order instead
 *   of folding onto the hour before (02:30 read as 01:30 EST, the instant 01:30 already has).
 * - in an overlap (the clock falls back; New York's 01:30 on 2027-11-07 shows twice) it is the
 *   earlier instant, 01:30 EDT, 05:30Z, as java.time and Temporal's `compatible` do: the first
 *   time the clock shows it, so a booking for 01:30 is never an hour later than the first 01:30.
 *   luxon's own `fromObject` picks by the zone's offset on the day it runs (the earlier instant
 *   in summer, the later in winter); its `getPossibleOffsets()` lists both, and the tests hold
 *   this function to the earlier of them.
 *
 * The offsets either side are taken a day away, as luxon's getPossibleOffsets does: no zone
 * changes its offset twice within two days.
 */
export function wallToUtc(wallMs: number, timeZone: string): number {
  const before = offsetMinutes(wallMs - DAY_MS, timeZone);
  const earlier = wallMs - before * MINUTE_MS;
  if (offsetMinutes(earlier, timeZone) === before) return earlier;
  const after = offsetMinutes(wallMs + DAY_MS, timeZone);
  const later = wallMs - after * MINUTE_MS;
  if (offsetMinutes(later, timeZone) === after) return later;
  // Neither offset shows this wall-clock time: a gap.
  return earlier;
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
