import type { RequestValidationError } from '../../src/common/errors';
import { summaryType, timeseriesResource, type SummaryType, type TimeseriesResource } from '../../src/health-data/registry';
import { parseSamples } from '../../src/health-data/sample-schemas';
import { fromSdkSamples, isPlainSdkSample, SDK_RESOURCE_ALIASES, sdkQuantitySample, sdkSourceType } from '../../src/health-data/sdk-sample-shapes';
import { fromSdkSummaries } from '../../src/health-data/sdk-summary-shapes';
import { SUMMARY_SCHEMAS } from '../../src/health-data/summary-schemas';

/**
 * The mobile SDKs' own sample and summary shapes (vital-ios LocalQuantitySample and the summary
 * patches, vital-android's Local* classes), as their encoders write them, translated into
 * labflow's. Objects here are written as the SDKs encode them: snake_case keys, dates in whole
 * seconds with `Z`, optionals left out.
 */
const resource = (slug: string) => timeseriesResource(slug) as TimeseriesResource;
const summary = (slug: string) => summaryType(slug) as SummaryType;
const quantity = (fields: Record<string, unknown>) => ({
  value: 61,
  start_date: '2026-11-20T08:00:00Z',
  end_date: '2026-11-20T08:00:00Z',
  unit: 'bpm',
  source_bundle: 'com.apple.health.81A3C1F0',
  product_type: 'Watch6,2',
  metadata: { _DMO: 'Watch' },
  ...fields,
});
const issuesOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as RequestValidationError).issues.map((issue) => [issue.loc, issue.msg]);
  }
  throw new Error('no validation error');
};

describe('SDK timeseries samples', () => {
  it('checks the usual LocalQuantitySample without zod, accepting only what the schema accepts', () => {
    const variants: Array<Record<string, unknown>> = [
      quantity({}),
      quantity({ id: 'a1', type: 'watch', metadata: {} }),
      quantity({ start_date: '2026-11-20T08:00:00.250Z', end_date: '2026-11-20T08:00:01+01:00' }),
      quantity({ source_bundle: null, product_type: null, type: null, metadata: null }),
      quantity({ extra_field: true }),
      quantity({ start_date: '2026-02-29T08:00:00Z' }),
      quantity({ start_date: '2024-02-29T08:00:00Z' }),
      quantity({ end_date: '2026-11-20T24:00:00Z' }),
      quantity({ start_date: '2026-11-20T08:00:00' }),
      quantity({ start_date: '2026-11-20' }),
      quantity({ value: Number.NaN }),
      quantity({ value: '61' }),
      quantity({ unit: 'x'.repeat(33) }),
      quantity({ unit: 5 }),
      quantity({ id: 'x'.repeat(256) }),
      quantity({ source_bundle: 7 }),
      quantity({ type: 'Watch' }),
      quantity({ metadata: { HKFoodType: 5 } }),
      quantity({ metadata: ['a'] }),
      quantity({ metadata: 'watch' }),
    ];
    const quick = variants.map((variant) => isPlainSdkSample(variant));
    const schema = variants.map((variant) => sdkQuantitySample.safeParse(variant).success);
    // Never more lenient than the schema; the common forms take the quick path.
    expect(quick.map((ok, i) => !ok || schema[i])).toEqual(variants.map(() => true));
    expect(quick.slice(0, 7)).toEqual([true, true, true, true, true, false, true]);
    expect(schema.slice(5, 7)).toEqual([false, true]);
    // Both paths translate a sample alike.
    const viaSchema = { ...quantity({}), value: '61' };
    expect(fromSdkSamples(resource('heartrate'), [quantity({})], 'unknown').data).toEqual([{ timestamp: '2026-11-20T08:00:00Z', value: 61, unit: 'bpm' }]);
    expect(issuesOf(() => fromSdkSamples(resource('heartrate'), [viaSchema], 'unknown'))).toEqual([[['body', 'data', 0, 'value'], expect.any(String)]]);
  });

  it('reads a discrete LocalQuantitySample as a timestamped sample, kept under its inferred source type', () => {
    const { data, sourceTypes } = fromSdkSamples(resource('heartrate'), [quantity({})], 'unknown');
    expect(data).toEqual([{ timestamp: '2026-11-20T08:00:00Z', value: 61, unit: 'bpm' }]);
    expect(sourceTypes).toEqual(['watch']);
    const [parsed] = parseSamples(resource('heartrate'), data, 'UTC');
    expect([parsed.ts, parsed.value]).toEqual([Date.parse('2026-11-20T08:00:00Z'), 61]);
  });

  it('reads an interval sample with both dates, and the SDKs’ unit spellings in the resource’s unit', () => {
    const steps = fromSdkSamples(resource('distance'), [quantity({ end_date: '2026-11-20T08:10:00Z', value: 812.5, unit: 'meter' })], 'unknown');
    expect(steps.data).toEqual([{ start: '2026-11-20T08:00:00Z', end: '2026-11-20T08:10:00Z', value: 812.5, unit: 'm' }]);
    // iOS records caffeine in mg, labflow in g; Android active calories in kJ.
    expect(fromSdkSamples(resource('caffeine'), [quantity({ value: 95, unit: 'mg' })], 'unknown').data).toEqual([
      expect.objectContaining({ value: 0.095, unit: 'g' }),
    ]);
    const kcal = fromSdkSamples(resource('calories_active'), [quantity({ value: 418.4, unit: 'kJ' })], 'unknown').data[0] as { value: number };
    expect(kcal.value).toBeCloseTo(100, 6);
    // A unit the resource cannot take stays as sent: the resource's schema names the unit it wants.
    const wrong = fromSdkSamples(resource('heartrate'), [quantity({ unit: 'kg' })], 'unknown').data;
    expect(issuesOf(() => parseSamples(resource('heartrate'), wrong, 'UTC'))).toEqual([[['body', 'data', 0, 'unit'], 'Unit must be "bpm".']]);
  });

  it('infers the source type as SourceType.infer does, and keeps the one the SDK sends', () => {
    expect(sdkSourceType({ source_bundle: 'com.apple.Health', product_type: null, type: null })).toBe('app');
    expect(sdkSourceType({ source_bundle: 'com.apple.health.X', product_type: 'iPhone15,2', type: undefined })).toBe('phone');
    expect(sdkSourceType({ source_bundle: 'com.ouraring.oura', product_type: 'iPhone15,2', type: null })).toBe('unknown');
    expect(sdkSourceType({ source_bundle: null, product_type: null, type: 'multiple_sources' })).toBe('multiple_sources');
    expect(SDK_RESOURCE_ALIASES.heartrate_variability).toBe('hrv');
  });

  it('reads a LocalBloodPressureSample, and the sample types iOS puts in metadata or the value', () => {
    const pressure = fromSdkSamples(
      resource('blood_pressure'),
      [{ systolic: quantity({ value: 121, unit: 'mmHg' }), diastolic: quantity({ value: 79, unit: 'mmHg' }) }],
      'unknown',
    );
    expect(pressure.data).toEqual([{ timestamp: '2026-11-20T08:00:00Z', systolic: 121, diastolic: 79, unit: 'mmHg' }]);
    const alert = fromSdkSamples(resource('heart_rate_alert'), [quantity({ value: 1, unit: 'count', metadata: { type: 'low_heart_rate' } })], 'unknown');
    expect(alert.data).toEqual([expect.objectContaining({ type: 'low_heart_rate', value: 1 })]);
    const stood = fromSdkSamples(resource('stand_hour'), [quantity({ value: 0, unit: 'count' }), quantity({ value: 1, unit: 'count' })], 'unknown');
    expect(stood.data.map((item) => (item as { type: string }).type)).toEqual(['stood', 'idle']);
  });

  it("passes labflow's own samples through, and names the SDK's field where its sample is wrong", () => {
    const own = { timestamp: '2026-11-20T08:00:00Z', value: 60 };
    expect(fromSdkSamples(resource('heartrate'), [own], 'watch')).toEqual({ data: [own], sourceTypes: ['watch'] });
    expect(issuesOf(() => fromSdkSamples(resource('heartrate'), [own, quantity({ start_date: 'yesterday' })], 'unknown'))).toEqual([
      [['body', 'data', 1, 'start_date'], expect.any(String)],
    ]);
    expect(issuesOf(() => fromSdkSamples(resource('heartrate'), [quantity({ value: '61' })], 'unknown'))[0][0]).toEqual(['body', 'data', 0, 'value']);
  });
});

const stage = (start: string, end: string) => ({ value: 1, start_date: start, end_date: end, unit: 'stage', source_bundle: 'com.apple.health.X' });

describe('SDK summaries', () => {
  it("reads iOS's SleepPatch.Sleep: stages summed from their samples, the night's day where it ends in the envelope's zone", () => {
    const sleep = {
      id: '6A1F6C1E-1D2B-4C3D-9E8F-0A1B2C3D4E5F',
      start_date: '2026-11-19T22:30:00Z',
      end_date: '2026-11-20T06:30:00Z',
      source_bundle: 'com.apple.health.X',
      product_type: 'Watch6,2',
      heart_rate_minimum: 48,
      heart_rate_mean: 55,
      heart_rate: [],
      sleep_stages: {
        awake_sleep_samples: [stage('2026-11-20T03:00:00Z', '2026-11-20T03:30:00Z')],
        deep_sleep_samples: [stage('2026-11-19T22:30:00Z', '2026-11-20T00:30:00Z')],
        light_sleep_samples: [stage('2026-11-20T00:30:00Z', '2026-11-20T03:00:00Z')],
        rem_sleep_samples: [stage('2026-11-20T03:30:00Z', '2026-11-20T06:30:00Z')],
        in_bed_sleep_samples: [stage('2026-11-19T22:00:00Z', '2026-11-20T06:45:00Z')],
      },
      metadata: {},
    };
    const [translated] = fromSdkSummaries(summary('sleep'), [sleep], 'America/New_York').items as Array<Record<string, unknown>>;
    expect(translated).toMatchObject({
      id: '6a1f6c1e-1d2b-4c3d-9e8f-0a1b2c3d4e5f',
      calendar_date: '2026-11-20',
      bedtime_start: sleep.start_date,
      bedtime_stop: sleep.end_date,
      type: 'long_sleep',
      timezone_offset: -18_000,
      duration: 28_800,
      awake: 1_800,
      deep: 7_200,
      light: 9_000,
      rem: 10_800,
      total: 27_000,
      hr_lowest: 48,
      hr_average: 55,
    });
    expect(SUMMARY_SCHEMAS.sleep.safeParse(translated).success).toBe(true);
  });

  it("reads an ActivityPatch.Activity's day summary, and one of samples only (Android's LocalActivity)", () => {
    const daily = {
      day_summary: { calendar_date: '2026-11-20', active_energy_burned_sum: 420.5, basal_energy_burned_sum: 1600, steps_sum: 8123, avg_heart_rate: 71 },
    };
    const samplesOnly = { steps: [quantity({ value: 100, unit: 'count' }), quantity({ value: 23, unit: 'count' })], active_energy_burned: [] };
    const [fromDay, fromSamples] = fromSdkSummaries(summary('activity'), [daily, samplesOnly], 'UTC').items;
    expect(fromDay).toEqual({
      calendar_date: '2026-11-20',
      calories_active: 420.5,
      calories_total: 2020.5,
      steps: 8123,
      heart_rate: { avg_bpm: 71 },
      time_zone: 'UTC',
    });
    expect(fromSamples).toEqual({ calendar_date: '2026-11-20', steps: 123, time_zone: 'UTC' });
  });

  it("reads iOS's BodyPatch (one object) as a body summary per day, the day's latest sample of each kind", () => {
    const body = {
      body_mass: [
        quantity({ value: 80.1, unit: 'kg' }),
        quantity({ value: 79.8, unit: 'kg', start_date: '2026-11-20T19:00:00Z', end_date: '2026-11-20T19:00:00Z' }),
      ],
      body_fat_percentage: [quantity({ value: 21.5, unit: '%', start_date: '2026-11-21T07:00:00Z', end_date: '2026-11-21T07:00:00Z' })],
      body_mass_index: [],
      waist_circumference: [],
      lean_body_mass: [],
      time_zones: [['2026-11-20', 'Europe/Berlin']],
    };
    expect(fromSdkSummaries(summary('body'), body, 'UTC').items).toEqual([
      { calendar_date: '2026-11-20', weight: 79.8 },
      { calendar_date: '2026-11-21', fat: 21.5 },
    ]);
  });

  it("reads iOS's ProfilePatch and WorkoutPatch.Workout", () => {
    const profile = { biological_sex: 'female', date_of_birth: '1990-04-02T00:00:00Z', height: 168, time_zone: 'Europe/London' };
    expect(fromSdkSummaries(summary('profile'), profile, 'UTC').items).toEqual([{ height: 168, birth_date: '1990-04-02', sex: 'female' }]);
    const workout = {
      start_date: '2026-11-20T07:00:00Z',
      end_date: '2026-11-20T07:45:00Z',
      moving_time: 2_600,
      source_bundle: 'com.apple.health.X',
      sport: 'Functional Strength Training',
      calories: 310,
      distance: null,
      heart_rate_mean: 128,
      heart_rate_maximum: 171,
      heart_rate: [],
      respiratory_rate: [],
      metadata: {},
    };
    const [translated] = fromSdkSummaries(summary('workouts'), [workout], 'UTC').items as Array<Record<string, unknown>>;
    expect(translated).toEqual({
      provider_id: '2026-11-20T07:00:00.000Z|functional_strength_training',
      calendar_date: '2026-11-20',
      time_start: workout.start_date,
      time_end: workout.end_date,
      timezone_offset: 0,
      title: 'Functional Strength Training',
      sport: { id: 0, name: 'Functional Strength Training', slug: 'functional_strength_training' },
      moving_time: 2_600,
      calories: 310,
      average_hr: 128,
      max_hr: 171,
    });
    expect(SUMMARY_SCHEMAS.workouts.safeParse(translated).success).toBe(true);
  });

  it("passes labflow's summaries through and names the SDK's field where its payload is wrong", () => {
    const own = { calendar_date: '2026-11-20', steps: 10 };
    expect(fromSdkSummaries(summary('activity'), [own], 'UTC').items).toEqual([own]);
    expect(issuesOf(() => fromSdkSummaries(summary('sleep'), [{ start_date: '2026-11-20T06:00:00Z', end_date: 'later' }], 'UTC'))).toEqual([
      [['body', 'data', 0, 'end_date'], expect.any(String)],
    ]);
    expect(issuesOf(() => fromSdkSummaries(summary('profile'), { biological_sex: 'unknown' }, 'UTC'))[0][0]).toEqual(['body', 'data', 'biological_sex']);
  });
});
