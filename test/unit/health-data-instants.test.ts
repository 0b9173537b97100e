import fc from 'fast-check';
import { isoString, utcInstantMs } from '../../src/health-data/instants';
import { sampleSchema } from '../../src/health-data/sample-schemas';
import { timeseriesResource } from '../../src/health-data/registry';

const DAY_MS = 86_400_000;
const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('isoString (toISOString without a Date per sample)', () => {
  it('is toISOString for whole milliseconds, across days and in any order', () => {
    const near = fc.integer({ min: 0, max: 30 * DAY_MS }).map((ms) => Date.UTC(2026, 9, 1) + ms);
    const any = fc.integer({ min: -1e13, max: 3e14 });
    fc.assert(
      fc.property(fc.array(fc.oneof(near, any), { minLength: 1, maxLength: 50 }), (values) => {
        for (const ms of values) expect(isoString(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 500 },
    );
  });

  it('is toISOString at the edges of a day and of its quick range, and for fractions', () => {
    const edges = [0, DAY_MS - 1, DAY_MS, Date.UTC(2026, 9, 1) - 1, 253_402_300_799_999, 253_402_300_800_000, -1, 1.5, 1790812800000.7, -0.5];
    for (const ms of edges) expect(isoString(ms)).toBe(new Date(ms).toISOString());
    expect(() => isoString(Number.NaN)).toThrow(RangeError);
    expect(() => isoString(Infinity)).toThrow(RangeError);
  });
});

describe('utcInstantMs (Date.parse of the usual UTC form)', () => {
  // Date-times built from parts in and out of range, in the quick form and around it.
  const text = fc
    .record({
      year: fc.integer({ min: 0, max: 9999 }),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      hour: fc.integer({ min: 0, max: 25 }),
      minute: fc.integer({ min: 0, max: 60 }),
      second: fc.integer({ min: 0, max: 61 }),
      fraction: fc.constantFrom('', '.1', '.12', '.123', '.1234', '.000', '.999', '.', '.12a'),
      separator: fc.constantFrom('T', 'T', 'T', 't', ' '),
      zone: fc.constantFrom('Z', 'Z', 'Z', 'z', '', '+01:00', '-0530'),
    })
    .map(
      (p) =>
        `${pad(p.year, 4)}-${pad(p.month, 2)}-${pad(p.day, 2)}${p.separator}${pad(p.hour, 2)}:${pad(p.minute, 2)}:${pad(p.second, 2)}${p.fraction}${p.zone}`,
    );
  const heartrate = sampleSchema(timeseriesResource('heartrate')!);

  it('is Date.parse, or NaN (left to Date.parse); never a time the schema refuses', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (texts) => {
        for (const value of texts) {
          const ms = utcInstantMs(value);
          if (Number.isNaN(ms)) continue;
          expect(ms).toBe(Date.parse(value));
          expect(heartrate.safeParse({ timestamp: value, value: 60 }).success).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the usual forms, February 30 as Date.parse does, and leaves the rest', () => {
    for (const value of ['2026-10-01T00:00:00Z', '2026-10-01T23:59:59.999Z', '2026-02-30T12:00:00.000Z', '1970-01-01T00:00:00Z', '2024-02-29T01:02:03Z']) {
      expect(utcInstantMs(value)).toBe(Date.parse(value));
    }
    expect(isoString(utcInstantMs('2026-10-01T08:09:10.011Z'))).toBe('2026-10-01T08:09:10.011Z');
    for (const value of [
      '2026-10-01T24:00:00Z',
      '2026-10-01T00:00:00',
      '2026-10-01t00:00:00Z',
      '2026-10-01 00:00:00Z',
      '2026-10-01T00:00:00+00:00',
      '2026-13-01T00:00:00Z',
      '2026-1a-01T00:00:00Z',
      '+02026-10-01T00:00Z',
      '',
    ]) {
      expect(utcInstantMs(value)).toBeNaN();
    }
  });
});
