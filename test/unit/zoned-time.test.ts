import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';
import { PSC_SITES } from '../../src/appointments/providers/sandbox-data';
import { formatInZone, offsetMinutes, todayIn, wallToUtc, zonedToUtc } from '../../src/appointments/zoned-time';

/**
 * zoned-time against luxon. labflow serves any zone the runtime knows (a user's
 * `fallback_time_zone`, a health-data upload's `time_zone`), and its sandbox providers serve PSC
 * sites and at-home phlebotomy areas in US zones; the named ones below are those, the US zones,
 * and zones with unusual transitions (30- and 45-minute offsets and shifts, a 2-hour shift,
 * negative DST, transitions at midnight, DST suspended for Ramadan).
 */
const NAMED_ZONES = [
  ...PSC_SITES.map((site) => site.timezone),
  'America/Phoenix',
  'America/Chicago',
  'America/New_York',
  'America/Denver',
  'America/Los_Angeles',
  'America/Anchorage',
  'America/Adak',
  'Pacific/Honolulu',
  'America/Puerto_Rico',
  'America/Indiana/Indianapolis',
  'America/Detroit',
  'America/Boise',
  'UTC',
  'Europe/London',
  'Europe/Dublin',
  'Australia/Lord_Howe',
  'America/St_Johns',
  'Pacific/Chatham',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'Pacific/Kiritimati',
  'Antarctica/Troll',
  'America/Havana',
  'Africa/Casablanca',
  'America/Santiago',
  'Pacific/Auckland',
];
const ZONES = [...new Set([...NAMED_ZONES, ...Intl.supportedValuesOf('timeZone')])];

const MINUTE_MS = 60_000;
const WEEK_MS = 7 * 86_400_000;
const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2029, 0, 1);

interface Transition {
  zone: string;
  /** The first millisecond of the new offset. */
  at: number;
  before: number;
  after: number;
}

/**
 * Every offset change of a zone in 2025–2028, by luxon: weekly steps, then halving to the
 * millisecond. No zone changes its offset twice within a week in these years (6-hourly steps find
 * the same 1,040 changes over the runtime's zones).
 */
function transitionsOf(zone: string): Transition[] {
  const tz = IANAZone.create(zone);
  const found: Transition[] = [];
  for (let t = FROM; t < TO; t += WEEK_MS) {
    const before = tz.offset(t);
    if (tz.offset(t + WEEK_MS) === before) continue;
    let [lo, hi] = [t, t + WEEK_MS];
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (tz.offset(mid) === before) lo = mid;
      else hi = mid;
    }
    found.push({ zone, at: hi, before, after: tz.offset(hi) });
  }
  return found;
}

const TRANSITIONS = ZONES.flatMap(transitionsOf);

/** luxon's instant for a wall-clock time (written as if UTC): in an overlap, the earlier one. */
function luxonWallToUtc(wallMs: number, zone: string): number {
  const w = DateTime.fromMillis(wallMs, { zone: 'UTC' });
  const local = DateTime.fromObject(
    { year: w.year, month: w.month, day: w.day, hour: w.hour, minute: w.minute, second: w.second, millisecond: w.millisecond },
    { zone },
  );
  return Math.min(...local.getPossibleOffsets().map((candidate) => candidate.toMillis()));
}

function expectAsLuxon(utcMs: number, zone: string): void {
  const dt = DateTime.fromMillis(utcMs, { zone });
  expect(offsetMinutes(utcMs, zone)).toBe(dt.offset);
  const whole = dt.set({ millisecond: 0 });
  expect(formatInZone(utcMs, zone)).toBe(whole.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ"));
  expect(todayIn(zone, utcMs)).toBe(dt.toISODate());
  const wall = utcMs + dt.offset * MINUTE_MS;
  expect(wallToUtc(wall, zone)).toBe(luxonWallToUtc(wall, zone));
}

describe('zoned-time agrees with luxon', () => {
  test('the zones and transitions under test', () => {
    for (const zone of NAMED_ZONES) expect(IANAZone.isValidZone(zone)).toBe(true);
    // Lord Howe's 30-minute shift, New York's 2027 changes, Troll's 2-hour shift.
    expect(TRANSITIONS).toEqual(
      expect.arrayContaining([
        { zone: 'Australia/Lord_Howe', at: Date.parse('2026-10-03T15:30:00Z'), before: 630, after: 660 },
        { zone: 'America/New_York', at: Date.parse('2027-03-14T07:00:00Z'), before: -300, after: -240 },
        { zone: 'America/New_York', at: Date.parse('2027-11-07T06:00:00Z'), before: -240, after: -300 },
        { zone: 'Antarctica/Troll', at: Date.parse('2027-03-28T01:00:00Z'), before: 0, after: 120 },
      ]),
    );
  });

  test('at every transition, the wall-clock time in the middle of its gap or overlap', () => {
    for (const { zone, at, before, after } of TRANSITIONS) {
      // The wall clock shows `at + before` just before the change and `at + after` just after it.
      const middle = at + ((before + after) / 2) * MINUTE_MS;
      expect({ zone, at, instant: wallToUtc(middle, zone) }).toEqual({ zone, at, instant: luxonWallToUtc(middle, zone) });
    }
  });

  test('wall-clock times and instants around every transition (property)', () => {
    const around = fc.record({
      transition: fc.constantFrom(...TRANSITIONS),
      // Mostly within the gap or overlap and its edges, else within four hours.
      minutes: fc.oneof(fc.integer({ min: -125, max: 125 }), fc.integer({ min: -240, max: 240 })),
      seconds: fc.integer({ min: 0, max: 59 }),
    });
    fc.assert(
      fc.property(around, ({ transition: { zone, at, before }, minutes, seconds }) => {
        const shift = minutes * MINUTE_MS + seconds * 1000;
        expectAsLuxon(at + shift, zone);
        const wall = at + before * MINUTE_MS + shift;
        expect(wallToUtc(wall, zone)).toBe(luxonWallToUtc(wall, zone));
      }),
      { numRuns: 3000 },
    );
  });

  test('any zone at any instant of 2025–2028 (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: FROM, max: TO - 1 }), (zone, utcMs) => expectAsLuxon(utcMs, zone)),
      { numRuns: 3000 },
    );
  });
});

describe('New York across the 2027 changes', () => {
  const NY = 'America/New_York';

  test('02:30 on 14 March does not exist: it is 03:30 EDT, an hour after 01:30', () => {
    expect(zonedToUtc('2027-03-14', 1, 30, NY)).toBe(Date.parse('2027-03-14T06:30:00Z'));
    expect(zonedToUtc('2027-03-14', 2, 30, NY)).toBe(Date.parse('2027-03-14T07:30:00Z'));
    expect(formatInZone(zonedToUtc('2027-03-14', 2, 30, NY), NY)).toBe('2027-03-14T03:30:00-04:00');
    expect(zonedToUtc('2027-03-14', 2, 0, NY)).toBe(Date.parse('2027-03-14T07:00:00Z'));
    expect(zonedToUtc('2027-03-14', 3, 0, NY)).toBe(Date.parse('2027-03-14T07:00:00Z'));
    expect(zonedToUtc('2027-03-14', 3, 30, NY)).toBe(Date.parse('2027-03-14T07:30:00Z'));
    // luxon reads the missing time the same way, whatever day it runs.
    expect(DateTime.fromObject({ year: 2027, month: 3, day: 14, hour: 2, minute: 30 }, { zone: NY }).toMillis()).toBe(Date.parse('2027-03-14T07:30:00Z'));
  });

  test('01:30 on 7 November happens twice: it is the first, 01:30 EDT', () => {
    expect(zonedToUtc('2027-11-07', 1, 30, NY)).toBe(Date.parse('2027-11-07T05:30:00Z'));
    expect(formatInZone(Date.parse('2027-11-07T05:30:00Z'), NY)).toBe('2027-11-07T01:30:00-04:00');
    expect(formatInZone(Date.parse('2027-11-07T06:30:00Z'), NY)).toBe('2027-11-07T01:30:00-05:00');
    expect(zonedToUtc('2027-11-07', 0, 59, NY)).toBe(Date.parse('2027-11-07T04:59:00Z'));
    expect(zonedToUtc('2027-11-07', 2, 0, NY)).toBe(Date.parse('2027-11-07T07:00:00Z'));
    const both = DateTime.fromObject({ year: 2027, month: 11, day: 7, hour: 1, minute: 30 }, { zone: NY }).getPossibleOffsets();
    expect(both.map((dt) => dt.toMillis()).sort()).toEqual([Date.parse('2027-11-07T05:30:00Z'), Date.parse('2027-11-07T06:30:00Z')]);
  });

  test('Lord Howe: the 30-minute gap moves forward, the 30-minute overlap takes the first', () => {
    const LH = 'Australia/Lord_Howe';
    expect(formatInZone(zonedToUtc('2026-10-04', 2, 15, LH), LH)).toBe('2026-10-04T02:45:00+11:00');
    expect(zonedToUtc('2027-04-04', 1, 45, LH)).toBe(Date.parse('2027-04-03T14:45:00Z'));
    expect(formatInZone(Date.parse('2027-04-03T14:45:00Z'), LH)).toBe('2027-04-04T01:45:00+11:00');
  });

  test('an unknown zone is refused', () => {
    expect(() => offsetMinutes(0, 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});
