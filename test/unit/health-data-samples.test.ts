import fc from 'fast-check';
import type { RequestValidationError } from '../../src/common/errors';
import { batchItem } from '../../src/events/event-batches';
import { sampleItem, sampleJson, sampleView, storedSampleOf } from '../../src/health-data/health-data-views';
import { TIMESERIES_RESOURCES, type TimeseriesResource } from '../../src/health-data/registry';
import { isPlainSample, lastPerKey, type NormalisedSample, parseSamples, sampleSchema } from '../../src/health-data/sample-schemas';

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
    fc.constantFrom('2026-10-01T08:00:00', '2026-10-01 08:00', '2026-10-01T08:00:00+02:00', '2026-10-01T25:00:00Z', '2026-02-30T00:00:00Z', '2026-10-01', 'yesterday', ''),
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
    fc.constantFrom(...resources).chain((resource) => fc.tuple(fc.constant(resource), fc.array(fc.oneof(usual(resource), usual(resource), sample), { minLength: 1, maxLength })));

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
