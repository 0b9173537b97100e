import { zonedToUtc } from '../../src/appointments/zoned-time';
import { DEMO_PROVIDERS, type DemoBatch, type DemoProvider, generateDemoData } from '../../src/connections/sandbox-physiology';
import { timeseriesResource } from '../../src/health-data/registry';
import { parseSamples } from '../../src/health-data/sample-schemas';
import { SUMMARY_SCHEMAS } from '../../src/health-data/summary-schemas';

type Sample = Record<string, unknown>;

const HOUR = 3_600_000;
const TZ = 'America/New_York';
// Thirty days from a local midnight, across the 1 November 2026 DST change, ending mid-afternoon.
const FROM = zonedToUtc('2026-10-20', 0, 0, TZ);
const TO = zonedToUtc('2026-11-19', 14, 0, TZ);

const generate = (provider: DemoProvider, from = FROM, to = TO, seed = 'user-1', timeZone = TZ) => generateDemoData({ provider, seed, from, to, timeZone });
const FULL = Object.fromEntries(DEMO_PROVIDERS.map((provider) => [provider, generate(provider)])) as Record<DemoProvider, DemoBatch[]>;

const dataOf = (batches: DemoBatch[], resource: string): Sample[] => batches.find((batch) => batch.resource === resource)?.data ?? [];
const timeOf = (sample: Sample) => Date.parse(String(sample.timestamp ?? sample.start));
const endOf = (sample: Sample) => Date.parse(String(sample.end ?? sample.timestamp));
/** Samples that travel with their night (the documented sleep rule) rather than by their own time. */
const nightBound = (provider: DemoProvider, resource: string) =>
  resource === 'hypnogram' || (provider === 'oura' && ['hrv', 'respiratory_rate', 'heartrate'].includes(resource));
const nightsOf = (batches: DemoBatch[]) =>
  dataOf(batches, 'sleep').map((night) => ({ start: Date.parse(String(night.bedtime_start)), stop: Date.parse(String(night.bedtime_stop)) }));
const inNight = (nights: Array<{ start: number; stop: number }>, t: number) => nights.some((night) => t >= night.start && t < night.stop);
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const average = (values: number[]) => sum(values) / values.length;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** The local calendar date of a sample: its timestamps carry the local offset. */
const localDate = (sample: Sample) => String(sample.timestamp ?? sample.start).slice(0, 10);
const localHour = (sample: Sample) => Number(String(sample.timestamp ?? sample.start).slice(11, 13));

/** Generates [from, to) in consecutive windows and merges them as a store would. */
function inChunks(provider: DemoProvider, bounds: number[], timeZone = TZ) {
  const series = new Map<string, Sample[]>();
  const sleep: Sample[] = [];
  const activity = new Map<string, Sample>();
  for (let i = 0; i + 1 < bounds.length; i++) {
    for (const batch of generate(provider, bounds[i], bounds[i + 1], 'user-1', timeZone)) {
      if (batch.resource === 'sleep') sleep.push(...batch.data);
      else if (batch.resource === 'activity') for (const day of batch.data) activity.set(String(day.calendar_date), day);
      else {
        const samples = series.get(batch.resource) ?? [];
        for (const sample of batch.data) samples.push(sample);
        series.set(batch.resource, samples);
      }
    }
  }
  // By time, each sample's parsed once (a stable sort: samples at one time keep their arrival order).
  for (const [resource, samples] of series) {
    const timed = samples.map((sample) => [timeOf(sample), sample] as const).sort((a, b) => a[0] - b[0]);
    series.set(
      resource,
      timed.map(([, sample]) => sample),
    );
  }
  return { series, sleep, activity: [...activity.values()] };
}

/** `whole`: the one window's batches, when the test already has them (FULL for [FROM, TO]). */
function expectSameAsOneWindow(
  provider: DemoProvider,
  bounds: number[],
  timeZone = TZ,
  whole = generate(provider, bounds[0], bounds[bounds.length - 1], 'user-1', timeZone),
) {
  const merged = inChunks(provider, bounds, timeZone);
  for (const batch of whole) {
    if (batch.resource === 'sleep') expect(merged.sleep).toEqual(batch.data);
    else if (batch.resource === 'activity') expect(merged.activity).toEqual(batch.data);
    else expect(merged.series.get(batch.resource)).toEqual(batch.data);
  }
  expect(merged.series.size + (merged.sleep.length > 0 ? 1 : 0) + (merged.activity.length > 0 ? 1 : 0)).toBe(whole.length);
}

describe('sandbox physiology: shape', () => {
  const WATCH = [
    'timeseries:heartrate',
    'timeseries:steps',
    'timeseries:distance',
    'timeseries:calories_active',
    'timeseries:hypnogram',
    'summary:activity',
    'summary:sleep',
  ];
  const EXPECTED: Record<DemoProvider, { sourceType: string; resources: string[] }> = {
    apple_health_kit: { sourceType: 'watch', resources: WATCH },
    fitbit: { sourceType: 'watch', resources: WATCH },
    freestyle_libre: { sourceType: 'cgm', resources: ['timeseries:glucose'] },
    oura: {
      sourceType: 'ring',
      resources: [
        'timeseries:heartrate',
        'timeseries:steps',
        'timeseries:distance',
        'timeseries:calories_active',
        'timeseries:hrv',
        'timeseries:hypnogram',
        'timeseries:respiratory_rate',
        'summary:activity',
        'summary:sleep',
      ],
    },
  };

  it.each(DEMO_PROVIDERS)('%s delivers its resources, in 30 days and in any two whole days', (provider) => {
    const shape = (batches: DemoBatch[]) => batches.map((batch) => `${batch.kind}:${batch.resource}`);
    expect(shape(FULL[provider])).toEqual(EXPECTED[provider].resources);
    expect(shape(generateDemoData({ provider, seed: 'catalogue', timeZone: 'UTC', from: Date.UTC(2026, 0, 5), to: Date.UTC(2026, 0, 7) }))).toEqual(
      EXPECTED[provider].resources,
    );
    expect(new Set(FULL[provider].map((batch) => batch.sourceType))).toEqual(new Set([EXPECTED[provider].sourceType]));
    expect(generate(provider, TO, TO)).toEqual([]);
  });

  it.each(['abbott_libreview', 'dexcom'] as const)(
    '%s (a Link password provider) is a CGM: glucose only, the curve Freestyle Libre reads for the same seed, within sensor noise',
    (provider) => {
      const window = { seed: 'user-1', timeZone: TZ, from: FROM, to: FROM + 2 * 86_400_000 };
      const cgm = generateDemoData({ provider, ...window });
      expect(cgm.map((batch) => [batch.kind, batch.resource, batch.sourceType])).toEqual([['timeseries', 'glucose', 'cgm']]);
      const [libre] = generateDemoData({ provider: 'freestyle_libre', ...window });
      expect(cgm[0].data.map((sample) => sample.timestamp)).toEqual(libre.data.map((sample) => sample.timestamp));
      const gaps = cgm[0].data.map((sample, i) => Math.abs((sample.value as number) - (libre.data[i].value as number)));
      expect(Math.max(...gaps)).toBeLessThanOrEqual(0.31);
    },
  );

  it('samples on each provider grid', () => {
    const spacing = (samples: Sample[]) => new Set(samples.slice(1).map((sample, i) => (timeOf(sample) - timeOf(samples[i])) / 60_000));
    const length = (samples: Sample[]) => new Set(samples.map((sample) => (endOf(sample) - timeOf(sample)) / 60_000));
    expect(spacing(dataOf(FULL.apple_health_kit, 'heartrate'))).toEqual(new Set([5]));
    expect(spacing(dataOf(FULL.fitbit, 'heartrate'))).toEqual(new Set([5]));
    expect(spacing(dataOf(FULL.freestyle_libre, 'glucose'))).toEqual(new Set([15]));
    expect(length(dataOf(FULL.apple_health_kit, 'steps'))).toEqual(new Set([15]));
    expect(length(dataOf(FULL.fitbit, 'steps'))).toEqual(new Set([60]));
    expect(length(dataOf(FULL.oura, 'steps'))).toEqual(new Set([30]));
    // The ring: heart rate every 10 minutes asleep, every 30 awake; hrv every 5 minutes asleep.
    const nights = nightsOf(FULL.oura);
    const heart = dataOf(FULL.oura, 'heartrate');
    expect(spacing(heart.filter((sample) => inNight(nights, timeOf(sample))))).toContain(10);
    expect(heart.filter((sample) => !inNight(nights, timeOf(sample))).every((sample) => timeOf(sample) % (30 * 60_000) === 0)).toBe(true);
    expect(dataOf(FULL.oura, 'hrv').every((sample) => inNight(nights, timeOf(sample)))).toBe(true);
  });

  it.each(DEMO_PROVIDERS)('%s passes ingestion validation, also for a window ending now', (provider) => {
    const now = Math.floor(Date.now() / HOUR) * HOUR;
    const recent = generate(provider, now - 2 * 86_400_000, now, 'user-1', 'Asia/Kolkata');
    for (const [batches, to] of [
      [FULL[provider], TO],
      [recent, now],
    ] as const) {
      for (const batch of batches) {
        if (batch.kind === 'summary') {
          for (const item of batch.data) expect(SUMMARY_SCHEMAS[batch.resource].safeParse(item).error).toBeUndefined();
          continue;
        }
        const resource = timeseriesResource(batch.resource)!;
        const parsed = parseSamples(resource, batch.data, TZ);
        expect(parsed.map((sample) => sample.ts)).toEqual(batch.data.map(timeOf));
        expect(batch.data.every((sample) => sample.unit === resource.unit)).toBe(true);
        expect(Math.max(...batch.data.map(endOf))).toBeLessThanOrEqual(to);
      }
    }
  });
});

describe('sandbox physiology: determinism', () => {
  it.each(DEMO_PROVIDERS)('%s gives byte-identical output for the same seed and window', (provider) => {
    const again = generate(provider);
    expect(JSON.stringify(again)).toBe(JSON.stringify(FULL[provider]));
  });

  it.each(DEMO_PROVIDERS)('%s gives different data for a different seed', (provider) => {
    const other = generate(provider, FROM, TO, 'user-2');
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(FULL[provider]));
    const resource = provider === 'freestyle_libre' ? 'glucose' : 'heartrate';
    const mine = new Map(dataOf(FULL[provider], resource).map((sample) => [timeOf(sample), sample.value]));
    const theirs = dataOf(other, resource).filter((sample) => mine.has(timeOf(sample)));
    expect(theirs.filter((sample) => sample.value !== mine.get(timeOf(sample))).length).toBeGreaterThan(theirs.length / 3);
  });

  it.each(DEMO_PROVIDERS)('%s gives the same data in consecutive windows as in one (split at a local midnight, and every 7 hours)', (provider) => {
    // FULL is the one window [FROM, TO) (generated again byte for byte: the determinism tests above).
    expectSameAsOneWindow(provider, [FROM, zonedToUtc('2026-11-05', 0, 0, TZ), TO], TZ, FULL[provider]);
    const bounds: number[] = [];
    for (let t = FROM; t < TO; t += 7 * HOUR) bounds.push(t);
    expectSameAsOneWindow(provider, [...bounds, TO], TZ, FULL[provider]);
    // Bounds off every grid (a connection syncs up to "now"): no interval lost or sent twice.
    const odd: number[] = [];
    for (let t = FROM; t < TO; t += 7 * HOUR + 13 * 60_000 + 7_123) odd.push(t);
    expectSameAsOneWindow(provider, [...odd, TO], TZ, FULL[provider]);
  });

  it('is window-independent in a half-hour time zone too (bounds on whole UTC hours)', () => {
    const from = Date.UTC(2026, 9, 20, 0),
      to = Date.UTC(2026, 10, 3, 5);
    for (const provider of ['fitbit', 'oura'] as const) {
      const bounds: number[] = [];
      for (let t = from; t < to; t += 5 * HOUR) bounds.push(t);
      expectSameAsOneWindow(provider, [...bounds, to], 'Asia/Kolkata');
    }
  });
});

describe('sandbox physiology: windows', () => {
  // A window that opens and closes in the middle of nights.
  const from = zonedToUtc('2026-11-03', 3, 0, TZ),
    to = zonedToUtc('2026-11-06', 3, 0, TZ);

  it.each(DEMO_PROVIDERS)('%s emits nothing outside [from, to) but whole nights that end inside it', (provider) => {
    const midNight = generate(provider, from, to);
    for (const [start, stop, batches] of [
      [FROM, TO, FULL[provider]],
      [from, to, midNight],
    ] as const) {
      const nights = nightsOf(batches);
      for (const night of nights) expect(night.stop > start && night.stop <= stop).toBe(true);
      const outside: Sample[] = [];
      for (const batch of batches.filter((candidate) => candidate.kind === 'timeseries')) {
        for (const sample of batch.data) {
          // Discrete: its instant in [start, stop); interval: its end in (start, stop].
          const inWindow = 'end' in sample ? endOf(sample) > start && endOf(sample) <= stop : timeOf(sample) >= start && timeOf(sample) < stop;
          const withItsNight = nightBound(provider, batch.resource) && nights.some((night) => timeOf(sample) >= night.start && endOf(sample) <= night.stop);
          if (!inWindow && !withItsNight) outside.push({ resource: batch.resource, ...sample });
        }
      }
      expect(outside).toEqual([]);
    }
    // The night in progress at `from` comes whole, from its bedtime; the one in progress at `to` not at all.
    const batches = midNight;
    if (provider !== 'freestyle_libre') {
      expect(Math.min(...dataOf(batches, 'hypnogram').map(timeOf))).toBeLessThan(from);
      expect(dataOf(batches, 'sleep')).toHaveLength(3);
      expect(Math.max(...dataOf(batches, 'hypnogram').map(endOf))).toBeLessThanOrEqual(Math.max(...nightsOf(batches).map((night) => night.stop)));
    }
  });

  it('re-sends an incomplete day as a larger activity summary under the same calendar_date', () => {
    const noon = zonedToUtc('2026-11-19', 12, 0, TZ);
    const morning = dataOf(generate('apple_health_kit', zonedToUtc('2026-11-19', 8, 0, TZ), noon), 'activity');
    const afternoon = dataOf(generate('apple_health_kit', noon, TO), 'activity');
    expect(morning.map((day) => day.calendar_date)).toEqual(['2026-11-19']);
    expect(afternoon.map((day) => day.calendar_date)).toEqual(['2026-11-19']);
    expect(afternoon[0].steps).toBeGreaterThan(morning[0].steps as number);
    expect(afternoon[0].calories_total).toBeGreaterThan(morning[0].calories_total as number);
    // The summary covers the whole day up to `to`, not only the window.
    expect(morning[0]).toEqual(dataOf(generate('apple_health_kit', FROM, noon), 'activity').at(-1));
    expect(afternoon[0]).toEqual(dataOf(FULL.apple_health_kit, 'activity').at(-1));
  });
});

describe('sandbox physiology: believable and consistent', () => {
  const WEARABLES = ['apple_health_kit', 'fitbit', 'oura'] as const;

  it.each(WEARABLES)('%s sleep stages add up, and match the hypnogram', (provider) => {
    const sleep = dataOf(FULL[provider], 'sleep');
    const hypnogram = dataOf(FULL[provider], 'hypnogram');
    expect(sleep).toHaveLength(31);
    for (const night of sleep) {
      const [start, stop] = [Date.parse(String(night.bedtime_start)), Date.parse(String(night.bedtime_stop))];
      const { duration, total, awake, light, rem, deep } = night as Record<string, number>;
      expect(light + rem + deep).toBe(total);
      expect(total + awake).toBe(duration);
      expect(duration).toBe((stop - start) / 1000);
      expect(night.calendar_date).toBe(String(night.bedtime_stop).slice(0, 10));
      expect(total / 3600).toBeGreaterThan(6);
      expect(total / 3600).toBeLessThan(9.5);
      expect(deep / total).toBeGreaterThan(0.1);
      expect(rem / total).toBeGreaterThan(0.1);
      const stages = hypnogram.filter((segment) => timeOf(segment) >= start && timeOf(segment) < stop);
      expect(timeOf(stages[0])).toBe(start);
      expect(endOf(stages[stages.length - 1])).toBe(stop);
      stages.slice(1).forEach((segment, i) => expect(timeOf(segment)).toBe(endOf(stages[i]))); // contiguous
      const seconds = (stage: number) => sum(stages.filter((segment) => segment.value === stage).map((segment) => (endOf(segment) - timeOf(segment)) / 1000));
      expect([seconds(1), seconds(2), seconds(3), seconds(4)]).toEqual([deep, light, rem, awake]);
    }
  });

  it.each(WEARABLES)("%s activity summaries equal the sums of the day's samples", (provider) => {
    const days = dataOf(FULL[provider], 'activity');
    expect(days).toHaveLength(31);
    const byDay = (resource: string, date: string) =>
      sum(
        dataOf(FULL[provider], resource)
          .filter((sample) => localDate(sample) === date)
          .map((sample) => sample.value as number),
      );
    for (const day of days) {
      const date = String(day.calendar_date);
      expect(day.steps).toBe(byDay('steps', date));
      expect(day.distance).toBeCloseTo(byDay('distance', date), 1);
      expect(day.calories_active).toBeCloseTo(byDay('calories_active', date), 1);
      expect(day.calories_total as number).toBeGreaterThan(day.calories_active as number);
      expect((day.low as number) + (day.medium as number) + (day.high as number)).toBeLessThanOrEqual(1440);
    }
    for (const day of days.slice(0, -1)) {
      expect(day.steps).toBeGreaterThan(5000);
      expect(day.steps).toBeLessThan(20_000);
      expect(day.high).toBeGreaterThan(0);
      expect(day.medium).toBeGreaterThan(0);
    }
  });

  it('keeps the same local days in a half-hour time zone', () => {
    const from = zonedToUtc('2026-10-20', 0, 0, 'Asia/Kolkata');
    const batches = generate('fitbit', from, from + 3 * 86_400_000, 'user-1', 'Asia/Kolkata');
    for (const day of dataOf(batches, 'activity')) {
      expect(day.steps).toBe(
        sum(
          dataOf(batches, 'steps')
            .filter((sample) => localDate(sample) === day.calendar_date)
            .map((sample) => sample.value as number),
        ),
      );
      expect(day.timezone_offset).toBe(19_800);
    }
  });

  it.each(WEARABLES)('%s steps, distance and active calories agree', (provider) => {
    const steps = dataOf(FULL[provider], 'steps');
    const distance = dataOf(FULL[provider], 'distance');
    const calories = dataOf(FULL[provider], 'calories_active');
    expect(distance.map(timeOf)).toEqual(steps.map(timeOf));
    expect(calories.map(timeOf)).toEqual(steps.map(timeOf));
    const odd = steps.filter((sample, i) => {
      const count = sample.value as number,
        metres = distance[i].value as number,
        kcal = calories[i].value as number;
      if (count === 0) return metres !== 0 || kcal !== 0;
      return metres / count < 0.68 || metres / count > 0.82 || (count >= 50 && (kcal / count < 0.035 || kcal / count > 0.055));
    });
    expect(odd).toEqual([]);
    expect(steps.filter((sample) => (sample.value as number) > 0).length).toBeGreaterThan(steps.length / 3);
    // Nobody walks in their sleep.
    const nights = nightsOf(FULL[provider]);
    expect(
      sum(
        steps.filter((sample) => nights.some((night) => timeOf(sample) >= night.start && endOf(sample) <= night.stop)).map((sample) => sample.value as number),
      ),
    ).toBe(0);
  });

  it.each(WEARABLES)('%s heart rate is lower asleep than awake, and spikes in the daily workout', (provider) => {
    const nights = nightsOf(FULL[provider]);
    const heart = dataOf(FULL[provider], 'heartrate');
    const asleep = heart.filter((sample) => inNight(nights, timeOf(sample))).map((sample) => sample.value as number);
    const awake = heart.filter((sample) => timeOf(sample) >= nights[0].stop && !inNight(nights, timeOf(sample))).map((sample) => sample.value as number);
    expect(average(asleep)).toBeGreaterThan(48);
    expect(average(asleep)).toBeLessThan(62);
    expect(average(awake)).toBeGreaterThan(62);
    expect(average(awake)).toBeLessThan(85);
    expect(average(awake) - average(asleep)).toBeGreaterThan(8);
    const sleep = dataOf(FULL[provider], 'sleep');
    expect(sleep.every((night) => (night.hr_lowest as number) <= (night.hr_average as number) && (night.hr_average as number) < 62)).toBe(true);
    if (provider === 'oura') return; // the ring samples too sparsely by day to catch every workout
    const byDay = new Map<string, number>();
    for (const sample of heart) byDay.set(localDate(sample), Math.max(byDay.get(localDate(sample)) ?? 0, sample.value as number));
    for (const [date, peak] of byDay) if (date < '2026-11-19') expect(peak).toBeGreaterThanOrEqual(120);
  });

  it('oura hrv is higher in deep sleep than in REM or awake', () => {
    const stageAt = (t: number) => dataOf(FULL.oura, 'hypnogram').find((segment) => t >= timeOf(segment) && t < endOf(segment))?.value;
    const hrv = dataOf(FULL.oura, 'hrv').slice(0, 600);
    const of = (stage: number) => average(hrv.filter((sample) => stageAt(timeOf(sample)) === stage).map((sample) => sample.value as number));
    expect(of(1)).toBeGreaterThan(of(3));
    expect(of(3)).toBeGreaterThan(of(4));
    expect(dataOf(FULL.oura, 'respiratory_rate').every((sample) => (sample.value as number) >= 11 && (sample.value as number) <= 18)).toBe(true);
  });

  it('glucose rises after each meal above a ~5.3 mmol/L baseline, dips overnight and comes back', () => {
    const glucose = dataOf(FULL.freestyle_libre, 'glucose');
    const values = glucose.map((sample) => sample.value as number);
    const baseline = median(values);
    expect(baseline).toBeGreaterThanOrEqual(4.9);
    expect(baseline).toBeLessThanOrEqual(5.8);
    expect(Math.min(...values)).toBeGreaterThan(3.5);
    expect(Math.max(...values)).toBeLessThan(10);
    const days = [...new Set(glucose.map(localDate))].slice(1, -1);
    for (const date of days) {
      const day = glucose.filter((sample) => localDate(sample) === date);
      const hours = (low: number, high: number) => day.filter((sample) => localHour(sample) >= low && localHour(sample) < high);
      expect(average(hours(2, 5).map((sample) => sample.value as number))).toBeLessThan(baseline);
      // Breakfast, lunch, dinner: a peak of 7-9.5 mmol/L, reached within ~1.5 h of the rise, gone ~3 h later.
      for (const [low, high] of [
        [6, 11],
        [11, 17],
        [17, 23],
      ]) {
        const meal = hours(low, high);
        const peakAt = meal.reduce((best, sample, i) => ((sample.value as number) > (meal[best].value as number) ? i : best), 0);
        const peak = meal[peakAt].value as number;
        expect(peak).toBeGreaterThanOrEqual(7);
        expect(peak).toBeLessThanOrEqual(9.5);
        let rise = peakAt;
        while (rise > 0 && (meal[rise - 1].value as number) > baseline + 0.4) rise--;
        expect(timeOf(meal[peakAt]) - timeOf(meal[rise])).toBeLessThanOrEqual(1.5 * HOUR);
        const later = glucose.find((sample) => timeOf(sample) === timeOf(meal[peakAt]) + 3 * HOUR);
        expect(later!.value as number).toBeLessThan(baseline + 0.8);
      }
    }
  });
});
