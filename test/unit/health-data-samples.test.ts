import { sampleJson, sampleView, storedSampleOf } from '../../src/health-data/health-data-views';
import { TIMESERIES_RESOURCES } from '../../src/health-data/registry';
import { lastPerKey, type NormalisedSample } from '../../src/health-data/sample-schemas';

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
});
