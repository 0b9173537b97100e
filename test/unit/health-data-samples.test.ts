import fc from 'fast-check';
import type { RequestValidationError } from '../../src/common/errors';
import { batchItem } from '../../src/events/event-batches';
import { groupedSamplesJson, sampleItem, sampleJson, sampleView, storedSampleJson, storedSampleOf } from '../../src/health-data/health-data-views';
import { sourceOf } from '../../src/health-data/providers';
import { TIMESERIES_RESOURCES, type TimeseriesResource, timeseriesResource } from '../../src/health-data/registry';
import { isPlainSample, lastPerKey, type NormalisedSample, parseSamples, sampleSchema } from '../../src/health-data/sample-schemas';
import type { StoredSample } from '../../src/health-data/timeseries.repository';

const sample = (ts: number, value: number, sampleKey = ''): NormalisedSample => ({
  ts,
  endTs: null,
  value,
  diastolic: null,
  sampleType: sampleKey || null,
  timezoneOffset: 0,
  extra: null,
  sampleKey,
});

describe('lastPerKey (one value per sample key and timestamp in a batch)', () => {
  it('keeps a batch in time order as it is', () => {
    const batch = [sample(1, 60), sample(2, 61), sample(3, 62)];
    expect(lastPerKey(batch)).toBe(batch);
  });

  it('keeps the last value of a repeated timestamp, at the place of its last occurrence', () => {
    expect(lastPerKey([sample(1, 60), sample(2, 61), sample(1, 70), sample(3, 62)]).map((s) => [s.ts, s.value])).toEqual([
      [2, 61],
      [1, 70],
      [3, 62],
    ]);
  });

  it('keeps samples of different sample keys at the same time, and out-of-order timestamps', () => {
    const batch = [sample(5, 120, 'ldl'), sample(5, 50, 'hdl'), sample(4, 110, 'ldl')];
    expect(lastPerKey(batch)).toEqual(batch);
  });
});

describe('sampleJson (the event JSON of an ingested sample)', () => {
  const samples: NormalisedSample[] = [
    sample(Date.parse('2026-11-20T08:00:00Z'), 61),
    { ...sample(Date.parse('2026-11-20T08:00:00.123Z'), 0.125), timezoneOffset: -18000 },
    { ...sample(Date.parse('2026-11-20T08:00:00Z'), 120, 'ldl'), endTs: Date.parse('2026-11-20T08:15:00Z'), diastolic: 80 },
    { ...sample(Date.parse('2026-11-20T08:00:00Z'), 0), value: null, endTs: Date.parse('2026-11-20T09:00:00Z') },
    { ...sample(Date.parse('2026-11-20T08:00:00Z'), -0), sampleType: 'automatic' },
    { ...sample(Date.parse('2026-11-20T08:00:00Z'), 7), extra: JSON.stringify({ value: 'felt fine', tags: ['a'] }) },
  ];

  it.each(TIMESERIES_RESOURCES.map((resource) => [resource.slug, resource]))('is the JSON of its view for %s', (_slug, resource) => {
    for (const item of samples) {
      expect(sampleJson(resource, item)).toBe(JSON.stringify(sampleView(resource, storedSampleOf(item))));
    }
  });

  it.each(TIMESERIES_RESOURCES.map((resource) => [resource.slug, resource]))('is the item of its event batch under its key for %s', (_slug, resource) => {
    for (const item of [...samples, sample(Date.parse('2026-11-20T08:00:00Z'), 5, 'say "hi"\\'), sample(Date.parse('2026-11-21T08:00:00Z'), 5)]) {
      expect(sampleItem(resource, item)).toEqual(batchItem(`${item.sampleKey}|${item.ts}`, sampleJson(resource, item)));
    }
  });
});

describe('the samples checked without zod (isPlainSample)', () => {
  const utc = fc.oneof(
    fc.integer({ min: 0, max: 60 * 86_400_000 }).map((ms) => new Date(Date.UTC(2026, 9, 1) + ms).toISOString()),
    fc.integer({ min: 0, max: 60 * 86_400_000 }).map((ms) => new Date(Date.UTC(2026, 9, 1) + ms).toISOString().slice(0, 19) + 'Z'),
  );
  const timestamp = fc.oneof(
    utc,
    fc.constantFrom(
      '2026-10-01T08:00:00',
      '2026-10-01 08:00',
      '2026-10-01T08:00:00+02:00',
      '2026-10-01T25:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-10-01',
      'yesterday',
      '',
    ),
    fc.constantFrom(undefined, null, 1790812800000, {}),
  );
  const field = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
  const sample = fc.record(
    {
      timestamp,
      start: timestamp,
      end: timestamp,
      value: fc.oneof(fc.double(), fc.integer(), fc.constantFrom('60', null, Number.NaN, Infinity, -0)),
      unit: field(fc.constantFrom('bpm', 'count', 'min', '%', 'kg', 'BPM')),
      type: field(fc.constantFrom(null, 'automatic', '', 'elevated')),
      timezone_offset: field(fc.oneof(fc.integer({ min: -70_000, max: 70_000 }), fc.double(), fc.constantFrom('0', null, -0))),
      note: field(fc.string()),
    },
    { requiredKeys: [] },
  );
  // Mostly samples near the quick form (right fields, the resource's unit), so both paths are taken often.
  const usual = (resource: TimeseriesResource) =>
    fc.record(
      {
        timestamp: fc.oneof(utc, utc, timestamp),
        start: fc.oneof(utc, utc, timestamp),
        end: fc.oneof(utc, utc, timestamp),
        value: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.double({ noNaN: true }), fc.constantFrom(-0, Number.NaN)),
        unit: field(fc.constantFrom(resource.unit, resource.unit, 'bpm')),
        type: field(fc.constantFrom(null, null, 'automatic')),
        timezone_offset: field(fc.oneof(fc.integer({ min: -64_800, max: 64_800 }), fc.constantFrom(64_801, 0.5))),
      },
      { requiredKeys: ['value'] },
    );
  const resources = TIMESERIES_RESOURCES.filter((resource) => resource.kind === 'discrete' || resource.kind === 'interval');
  const resourceSamples = (maxLength: number) =>
    fc
      .constantFrom(...resources)
      .chain((resource) => fc.tuple(fc.constant(resource), fc.array(fc.oneof(usual(resource), usual(resource), sample), { minLength: 1, maxLength })));

  it('accepts only samples the schema accepts, with the fields the schema gives', () => {
    let quick = 0;
    fc.assert(
      fc.property(resourceSamples(1), ([resource, [item]]) => {
        if (!isPlainSample(resource, item)) return;
        quick++;
        const result = sampleSchema(resource).safeParse(item);
        expect(result.success).toBe(true);
        const parsed = result.data as Record<string, unknown>;
        for (const key of Object.keys(parsed)) expect(parsed[key]).toBe((item as Record<string, unknown>)[key]);
      }),
      { numRuns: 5000 },
    );
    // The quick path was taken often enough to mean something.
    expect(quick).toBeGreaterThan(200);
  });

  it('stores the same samples as the schema alone, and refuses the same ones with the same errors', () => {
    const outcome = (resource: TimeseriesResource, items: unknown[], quickCheck?: () => boolean) => {
      try {
        return { samples: parseSamples(resource, items, 'Europe/Paris', quickCheck) };
      } catch (error) {
        return { issues: (error as RequestValidationError).issues };
      }
    };
    fc.assert(
      fc.property(resourceSamples(4), ([resource, items]) => {
        expect(outcome(resource, items)).toEqual(outcome(resource, items, () => false));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('storedSampleJson and groupedSamplesJson (a grouped read written as JSON text)', () => {
  const stored = (provider: string, sourceType: string, ts: number, more: Partial<StoredSample> = {}): StoredSample => ({
    provider,
    sourceType,
    sampleKey: '',
    ts,
    endTs: null,
    value: 60,
    diastolic: null,
    sampleType: null,
    timezoneOffset: 0,
    extra: null,
    ...more,
  });
  const day = Date.parse('2026-10-01T00:00:00Z');
  const samples: StoredSample[] = [
    stored('apple_health_kit', 'phone', day + 60_000, { value: 0.1 + 0.2, sampleType: 'lead "I" \u00fc\u2028\u{1F600}', sampleKey: 'x' }),
    stored('apple_health_kit', 'watch', day + 120_000, { value: null, endTs: day + 180_000, diastolic: 80.5, timezoneOffset: -18_000 }),
    stored('apple_health_kit', 'watch', day + 86_400_000 + 7, { value: NaN, sampleType: 'ldl' }),
    // In the order Postgres sorts them, not the order a JS object lists them (integer-like keys first).
    stored('123', 'ring', day + 1, { value: -0, timezoneOffset: null }),
    stored('7', 'watch', day, { value: 1e21 }),
    stored('oura', '', day + 3, { extra: { sensor_location: 'wrist' } }),
    stored('oura', 'ring', day + 4, { extra: { value: 'ate "pasta"', tags: ['food'], timestamp: 'overrides' } }),
    stored('zz_custom', 'unknown', day + 5, { value: 1e-7, extra: {} }),
  ];

  /** The grouped body as the service built it before: view objects, then JSON.stringify. */
  const reference = (resource: NonNullable<ReturnType<typeof timeseriesResource>>, page: StoredSample[], nextCursor: string | null) => {
    const groups: Record<string, Array<{ source: Record<string, unknown>; data: Array<Record<string, unknown>> }>> = {};
    let current: { provider: string; sourceType: string; data: Array<Record<string, unknown>> } | null = null;
    for (const row of page) {
      if (!current || current.provider !== row.provider || current.sourceType !== row.sourceType) {
        current = { provider: row.provider, sourceType: row.sourceType, data: [] };
        (groups[row.provider] ??= []).push({ source: sourceOf(row.provider, row.sourceType), data: current.data });
      }
      current.data.push(sampleView(resource, row));
    }
    return JSON.stringify({ groups, next_cursor: nextCursor });
  };

  it.each(TIMESERIES_RESOURCES.map((resource) => [resource.slug, resource]))('writes what JSON.stringify wrote of the views for %s', (_slug, resource) => {
    for (const item of samples) expect(storedSampleJson(resource, item)).toBe(JSON.stringify(sampleView(resource, item)));
    expect(groupedSamplesJson(resource, samples, 'WyJvdXJhIl0')).toBe(reference(resource, samples, 'WyJvdXJhIl0'));
    expect(groupedSamplesJson(resource, samples.slice(2, 5), null)).toBe(reference(resource, samples.slice(2, 5), null));
  });

  it('writes an empty page and a day of minutes as before', () => {
    const heartrate = timeseriesResource('heartrate')!;
    expect(groupedSamplesJson(heartrate, [], null)).toBe('{"groups":{},"next_cursor":null}');
    const minutes = Array.from({ length: 1440 }, (_, m) => stored('oura', 'ring', day + m * 60_000, { value: 50 + (m % 40) + (m % 3) / 4 }));
    expect(groupedSamplesJson(heartrate, minutes, null)).toBe(reference(heartrate, minutes, null));
  });
});
