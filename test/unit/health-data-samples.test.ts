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
