/**
 * UTC offsets of IANA time zones, in seconds, for stamping samples that carry none
 * (`timezone_offset`) and for reading offset-less local timestamps. Offsets change at most a
 * few times a year, so they are computed once per zone and hour and cached: a batch of 50,000
 * minute samples asks Intl about 800 times, not 50,000.
 */
const HOUR_MS = 3_600_000;
const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();
const MAX_CACHED = 200_000;

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The offset of `timeZone` from UTC at the instant `epochMs`, in seconds (east positive). */
export function offsetSeconds(timeZone: string, epochMs: number): number {
  if (timeZone === 'UTC') return 0;
  const hour = Math.floor(epochMs / HOUR_MS);
  const key = `${timeZone}|${hour}`;
  const cached = offsets.get(key);
  if (cached !== undefined) return cached;
  const at = hour * HOUR_MS;
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(at))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  const offset = Math.round((local - at) / 1000);
  if (offsets.size > MAX_CACHED) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/** The instant a wall-clock time (as if UTC, in ms) names in `timeZone`. */
export function localToEpochMs(timeZone: string, wallClockMs: number): number {
  const guess = wallClockMs - offsetSeconds(timeZone, wallClockMs) * 1000;
  // Near a transition the offset at the guess may differ; one correction settles it.
  return wallClockMs - offsetSeconds(timeZone, guess) * 1000;
}
