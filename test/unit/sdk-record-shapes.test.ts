import type { RequestValidationError } from '../../src/common/errors';
import { summaryType, type SummaryType } from '../../src/health-data/registry';
import { parseNestedSamples } from '../../src/health-data/sdk-nested-samples';
import { fromSdkSummaries } from '../../src/health-data/sdk-summary-shapes';
import { SUMMARY_SCHEMAS } from '../../src/health-data/summary-schemas';

/**
 * The SDKs' meal, menstrual cycle and electrocardiogram payloads, and the samples inside their
 * sleeps and workouts, as vital-ios (JSONEncoder, `.convertToSnakeCase`) and vital-android (Moshi)
 * encode them, translated into labflow's summaries and timeseries.
 */
const summary = (slug: string) => summaryType(slug) as SummaryType;
const issuesOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as RequestValidationError).issues.map((issue) => issue.loc);
  }
  throw new Error('no validation error');
};
const sample = (value: number, unit: string, start: string, end = start, from: Record<string, unknown> = {}) => ({
  value,
  start_date: start,
  end_date: end,
  source_bundle: 'com.apple.health.81A3C1F0',
  product_type: 'Watch6,2',
  unit,
  ...from,
});

describe('SDK meals', () => {
  it("reads iOS's HealthKitNutritionRawData as one meal per logged instant, in Junction's units", () => {
    const lunch = '2026-11-20T12:00:00Z';
    const meal = {
      healthkit: {
        source_bundle: 'com.myfitnesspal.mfp',
        energy_total: [sample(650, 'kcal', lunch), sample(120, 'kcal', '2026-11-20T16:00:00Z')],
        carbohydrates: [sample(80, 'gram', lunch)],
        fat_total: [sample(20, 'gram', lunch)],
        fat_saturated: [sample(6, 'gram', lunch)],
        cholesterol: [sample(90, 'mg', lunch)],
        sodium: [sample(1200, 'mg', lunch)],
        vitamin_d: [sample(5, '\u03BCg', lunch)],
        chromium: [sample(0.02, 'mg', lunch)],
      },
    };
    const { items, sourceTypes } = fromSdkSummaries(summary('meal'), [meal], 'UTC');
    expect(items).toEqual([
      {
        provider_id: 'com.myfitnesspal.mfp|2026-11-20T12:00:00.000Z',
        timestamp: '2026-11-20T12:00:00.000Z',
        name: 'Meal',
        source_app_id: 'com.myfitnesspal.mfp',
        energy: { unit: 'kcal', value: 650 },
        macros: { carbs: 80, cholesterol: 0.09, fats: { total: 20, saturated: 6 } },
        micros: { minerals: { sodium: 1.2 }, trace_elements: { chromium: 20 }, vitamins: { vitamin_d: 5 } },
      },
      expect.objectContaining({ timestamp: '2026-11-20T16:00:00.000Z', energy: { unit: 'kcal', value: 120 } }),
    ]);
    expect(sourceTypes).toEqual(['unknown', 'unknown']);
    for (const item of items) expect(SUMMARY_SCHEMAS.meal.safeParse(item).success).toBe(true);
  });

  it("reads Android's HealthConnectRecordCollection as one meal per nutrition record", () => {
    const meal = {
      health_connect: {
        source_bundle: 'com.samsung.android.shealth',
        nutrition_records: [
          {
            start_time: '2026-11-20T07:30:00Z',
            start_zone_offset: '+01:00',
            end_time: '2026-11-20T07:45:00Z',
            end_zone_offset: '+01:00',
            energy: 420,
            total_carbohydrate: 55.5,
            protein: 18,
            potassium: 350,
            folic_acid: 200,
            name: null,
            meal_type: 1,
            metadata: { dataOrigin: { packageName: 'com.samsung.android.shealth' } },
          },
        ],
      },
    };
    expect(fromSdkSummaries(summary('meal'), [meal], 'UTC').items).toEqual([
      {
        provider_id: 'com.samsung.android.shealth|2026-11-20T07:30:00.000Z|1',
        timestamp: '2026-11-20T07:30:00.000Z',
        name: 'Breakfast',
        source_app_id: 'com.samsung.android.shealth',
        energy: { unit: 'kcal', value: 420 },
        macros: { carbs: 55.5, protein: 18 },
        micros: { minerals: { potassium: 0.35 }, vitamins: { folic_acid: 0.2 } },
      },
    ]);
  });

  it("names the SDK's field of a bad meal sample or record", () => {
    const ios = { healthkit: { source_bundle: 'x', protein: [sample(10, 'kcal', '2026-11-20T12:00:00Z')] } };
    expect(issuesOf(() => fromSdkSummaries(summary('meal'), [ios], 'UTC'))).toEqual([['body', 'data', 0, 'healthkit', 'protein', 0, 'unit']]);
    const android = { health_connect: { source_bundle: 'x', nutrition_records: [{ start_time: 'noon', end_time: '2026-11-20T12:00:00Z', meal_type: 0 }] } };
    expect(issuesOf(() => fromSdkSummaries(summary('meal'), [android], 'UTC'))).toEqual([
      ['body', 'data', 0, 'health_connect', 'nutrition_records', 0, 'start_time'],
    ]);
  });
});

describe('SDK menstrual cycles and electrocardiograms', () => {
  const cycle = {
    source_bundle: 'com.apple.Health',
    cycle: {
      period_start: '2026-11-02',
      period_end: '2026-11-06',
      cycle_end: null,
      menstrual_flow: [{ date: '2026-11-02', flow: 'medium' }],
      cervical_mucus: [],
      intermenstrual_bleeding: [],
      contraceptive: [{ date: '2026-11-01', type: 'oral' }],
      detected_deviations: [],
      ovulation_test: [{ date: '2026-11-15', test_result: 'luteinizing_hormone_surge' }],
      home_pregnancy_test: [],
      home_progesterone_test: [],
      sexual_activity: [{ date: '2026-11-10', protection_used: null }],
      basal_body_temperature: [{ date: '2026-11-03', value: 36.4 }],
      source: { provider: 'apple_health_kit', type: 'phone', app_id: 'com.apple.Health' },
    },
  };

  it("reads LocalMenstrualCycle as Junction's cycle, kept under the cycle's own source type", () => {
    const { items, sourceTypes } = fromSdkSummaries(summary('menstrual_cycle'), [cycle], 'UTC');
    expect(items[0]).toMatchObject({
      period_start: '2026-11-02',
      period_end: '2026-11-06',
      menstrual_flow: [{ date: '2026-11-02', flow: 'medium' }],
      ovulation_test: [{ date: '2026-11-15', test_result: 'luteinizing_hormone_surge' }],
      sexual_activity: [{ date: '2026-11-10', protection_used: null }],
      source_app_id: 'com.apple.Health',
    });
    expect(items[0]).not.toHaveProperty('cycle_end');
    expect(sourceTypes).toEqual(['phone']);
    const bad = { ...cycle, cycle: { ...cycle.cycle, menstrual_flow: [{ date: '2026-11-02', flow: 'torrential' }] } };
    expect(issuesOf(() => fromSdkSummaries(summary('menstrual_cycle'), [bad], 'UTC'))).toEqual([['body', 'data', 0, 'cycle', 'menstrual_flow', 0, 'flow']]);
  });

  it('reads ManualElectrocardiogram as the ECG and its lead I voltage, in mV at the session start plus each offset', () => {
    const ecg = {
      electrocardiogram: {
        id: '0F1E2D3C-4B5A-4968-8776-655443322110',
        session_start: '2026-11-20T10:00:00Z',
        session_end: '2026-11-20T10:00:30Z',
        voltage_sample_count: 3,
        heart_rate_mean: 64,
        sampling_frequency_hz: 512,
        classification: 'sinus_rhythm',
        algorithm_version: '2',
        source_bundle: 'com.apple.health.81A3C1F0',
        product_type: 'Watch6,2',
        device_model: 'Watch',
      },
      voltage_data: { session_start_offset_millisecond: [0, 2, 4], lead1: [0.12, null, -0.05] },
    };
    const { items, sourceTypes, samples } = fromSdkSummaries(summary('electrocardiogram'), [ecg], 'UTC');
    expect(items).toEqual([
      {
        id: '0f1e2d3c-4b5a-4968-8776-655443322110',
        session_start: '2026-11-20T10:00:00Z',
        session_end: '2026-11-20T10:00:30Z',
        voltage_sample_count: 3,
        heart_rate_mean: 64,
        sampling_frequency_hz: 512,
        classification: 'sinus_rhythm',
        algorithm_version: '2',
        source_app_id: 'com.apple.health.81A3C1F0',
        source_device_model: 'Watch',
      },
    ]);
    expect(sourceTypes).toEqual(['watch']);
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({ item: 0, resource: { slug: 'electrocardiogram_voltage' } });
    expect(samples[0].samples).toEqual([
      { timestamp: '2026-11-20T10:00:00.000Z', value: 0.12, unit: 'mV', type: 'lead_1' },
      { timestamp: '2026-11-20T10:00:00.004Z', value: -0.05, unit: 'mV', type: 'lead_1' },
    ]);
    const bad = { ...ecg, voltage_data: { session_start_offset_millisecond: [0, 2], lead1: [0.1] } };
    expect(issuesOf(() => fromSdkSummaries(summary('electrocardiogram'), [bad], 'UTC'))).toEqual([['body', 'data', 0, 'voltage_data', 'lead1']]);
  });
});

describe('samples inside SDK sleeps and workouts', () => {
  it("takes an iOS sleep's heart rate, HRV, respiratory rate and wrist temperature as timeseries under the sleep's source type", () => {
    const sleep = {
      start_date: '2026-11-19T22:30:00Z',
      end_date: '2026-11-20T06:30:00Z',
      source_bundle: 'com.apple.health.81A3C1F0',
      product_type: 'iPhone15,2',
      heart_rate: [sample(52, 'bpm', '2026-11-19T23:00:00Z'), sample(49, 'bpm', '2026-11-20T02:00:00Z')],
      heart_rate_variability: [sample(61, 'rmssd', '2026-11-20T01:00:00Z')],
      respiratory_rate: [],
      wrist_temperature: [sample(35.9, '\u00B0C', '2026-11-19T22:30:00Z', '2026-11-20T06:30:00Z')],
      sleep_stages: {},
    };
    const { sourceTypes, samples } = fromSdkSummaries(summary('sleep'), [sleep], 'UTC');
    expect(sourceTypes).toEqual(['phone']);
    expect(samples.map((group) => [group.resource.slug, group.samples.length])).toEqual([
      ['heartrate', 2],
      ['hrv', 1],
      ['body_temperature', 1],
    ]);
    expect(samples[2].samples[0]).toEqual({ start: sleep.start_date, end: sleep.end_date, value: 35.9, unit: '\u00B0C', sensor_location: 'wrist' });
    const parsed = parseNestedSamples(samples, 'UTC');
    expect(parsed[0].parsed.map((one) => one.value)).toEqual([52, 49]);
    const bad = { ...sleep, heart_rate: [sample(52, 'bpm', '2026-11-19T23:00:00Z'), sample(49, 'mmHg', '2026-11-20T02:00:00Z')] };
    expect(issuesOf(() => parseNestedSamples(fromSdkSummaries(summary('sleep'), [bad], 'UTC').samples, 'UTC'))).toEqual([
      ['body', 'data', 0, 'heart_rate', 1, 'unit'],
    ]);
  });

  it("takes Android's sleep source_type, and an iOS workout's heart rate and stream as timeseries", () => {
    const android = {
      id: 'hc-sleep-1',
      start_date: '2026-11-19T22:30:00Z',
      end_date: '2026-11-20T06:30:00Z',
      source_bundle: 'com.google.android.apps.fitness',
      source_type: 'ring',
      sleep_stages: {},
      wrist_temperature: [],
    };
    expect(fromSdkSummaries(summary('sleep'), [android], 'UTC').sourceTypes).toEqual(['ring']);
    const workout = {
      start_date: '2026-11-20T07:00:00Z',
      end_date: '2026-11-20T07:45:00Z',
      moving_time: 2_600,
      source_bundle: 'com.apple.health.81A3C1F0',
      product_type: 'Watch6,2',
      sport: 'Cycling',
      calories: 310,
      distance: 15_000,
      heart_rate: [sample(128, 'bpm', '2026-11-20T07:10:00Z')],
      respiratory_rate: [],
      stream: {
        components: {
          distance_cycling: [{ anchor: '2026-11-20T07:00:00Z', value: [100, 120], start_offset: [0, 10], end_offset: [10, 20], source_bundle: 'x' }],
        },
      },
    };
    const { sourceTypes, samples } = fromSdkSummaries(summary('workouts'), [workout], 'UTC');
    expect(sourceTypes).toEqual(['watch']);
    expect(samples.map((group) => group.resource.slug)).toEqual(['heartrate', 'workout_distance']);
    expect(samples[1].samples).toEqual([
      { start: '2026-11-20T07:00:00.000Z', end: '2026-11-20T07:00:10.000Z', value: 100, unit: 'm' },
      { start: '2026-11-20T07:00:10.000Z', end: '2026-11-20T07:00:20.000Z', value: 120, unit: 'm' },
    ]);
    const bad = {
      ...workout,
      stream: { components: { distance_cycling: [{ anchor: '2026-11-20T07:00:00Z', value: [1], start_offset: [], end_offset: [] }] } },
    };
    expect(issuesOf(() => fromSdkSummaries(summary('workouts'), [bad], 'UTC'))).toEqual([
      ['body', 'data', 0, 'stream', 'components', 'distance_cycling', 0, 'value'],
    ]);
  });
});
