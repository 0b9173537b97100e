import type { OuraDailyActivity, OuraSleep } from '../../src/adapters/oura/oura-api';
import { offsetSeconds, ouraBatches } from '../../src/adapters/oura/oura-mapping';

/** Oura's documents in Junction's shapes (src/adapters/oura/oura-mapping.ts), field by field. */

const night: OuraSleep = {
  id: 'b3c1d6a0-0000-4000-8000-000000000001',
  day: '2026-11-20',
  bedtime_start: '2026-11-19T23:10:00+01:00',
  bedtime_end: '2026-11-20T06:55:00+01:00',
  type: 'long_sleep',
  time_in_bed: 27900,
  total_sleep_duration: 25500,
  awake_time: 2400,
  light_sleep_duration: 13800,
  rem_sleep_duration: 6300,
  deep_sleep_duration: 5400,
  efficiency: 91,
  latency: 540,
  average_heart_rate: 55.5,
  lowest_heart_rate: 48,
  average_hrv: 41,
  average_breath: 14.25,
  // 4 awake, 2 light, 2 light, 1 deep, 3 REM, 4 awake
  sleep_phase_5_min: '422134',
  hrv: { interval: 300, items: [38, null, 44], timestamp: '2026-11-19T23:10:00.000+01:00' },
  readiness: { temperature_deviation: -0.21 },
};

const day: OuraDailyActivity = {
  id: 'b3c1d6a0-0000-4000-8000-000000000002',
  day: '2026-11-20',
  timestamp: '2026-11-20T04:00:00-05:00',
  active_calories: 512,
  total_calories: 2390,
  steps: 10211,
  equivalent_walking_distance: 8120,
  low_activity_time: 15000,
  medium_activity_time: 2730,
  high_activity_time: 600,
};

test("a night: the sleep summary with the day's score, the hypnogram in runs of one stage, the HRV items Oura measured", () => {
  const batches = ouraBatches({ heartRate: [], sleep: [night], dailySleep: [{ id: 'x', day: '2026-11-20', score: 83 }], dailyActivity: [] });
  const byResource = Object.fromEntries(batches.map((batch) => [batch.resource, batch]));
  expect(Object.keys(byResource).sort()).toEqual(['hrv', 'hypnogram', 'sleep']);
  expect(batches.every((batch) => batch.sourceType === 'ring')).toBe(true);

  expect(byResource.sleep.data).toEqual([
    {
      calendar_date: '2026-11-20',
      bedtime_start: '2026-11-19T23:10:00+01:00',
      bedtime_stop: '2026-11-20T06:55:00+01:00',
      type: 'long_sleep',
      timezone_offset: 3600,
      duration: 27900,
      total: 25500,
      awake: 2400,
      light: 13800,
      rem: 6300,
      deep: 5400,
      efficiency: 91,
      latency: 540,
      hr_average: 55.5,
      hr_lowest: 48,
      average_hrv: 41,
      respiratory_rate: 14.25,
      temperature_delta: -0.21,
      score: 83,
    },
  ]);
  expect(byResource.hypnogram.data.map((sample) => [sample.start, sample.end, sample.value])).toEqual([
    ['2026-11-19T23:10:00+01:00', '2026-11-19T23:15:00+01:00', 4],
    ['2026-11-19T23:15:00+01:00', '2026-11-19T23:25:00+01:00', 2],
    ['2026-11-19T23:25:00+01:00', '2026-11-19T23:30:00+01:00', 1],
    ['2026-11-19T23:30:00+01:00', '2026-11-19T23:35:00+01:00', 3],
    ['2026-11-19T23:35:00+01:00', '2026-11-19T23:40:00+01:00', 4],
  ]);
  expect(byResource.hrv.data).toEqual([
    { timestamp: '2026-11-19T23:10:00+01:00', value: 38, unit: 'rmssd', timezone_offset: 3600 },
    { timestamp: '2026-11-19T23:20:00+01:00', value: 44, unit: 'rmssd', timezone_offset: 3600 },
  ]);
});

test("Oura's sleep types as Junction's; deleted periods left out; a nap carries no day score", () => {
  const periods = ['long_sleep', 'sleep', 'late_nap', 'rest', 'deleted'].map((type, index) => ({
    ...night,
    id: `n${index}`,
    type,
    bedtime_start: `2026-11-2${index}T13:00:00+00:00`,
  }));
  const [sleep] = ouraBatches({ heartRate: [], sleep: periods, dailySleep: [{ id: 'x', day: '2026-11-20', score: 83 }], dailyActivity: [] }).filter(
    (batch) => batch.resource === 'sleep',
  );
  expect(sleep.data.map((summary) => [summary.type, summary.score])).toEqual([
    ['long_sleep', 83],
    ['short_sleep', null],
    ['acknowledged_nap', null],
    ['unknown', null],
  ]);
});

test("a day of activity: seconds of activity as minutes, Oura's walking distance, the day's offset; heart rate as bpm samples", () => {
  const batches = ouraBatches({
    heartRate: [{ bpm: 61, source: 'awake', timestamp: '2026-11-20T08:05:00+00:00' }],
    sleep: [],
    dailySleep: [],
    dailyActivity: [day],
  });
  expect(batches.find((batch) => batch.resource === 'activity')?.data).toEqual([
    {
      calendar_date: '2026-11-20',
      calories_total: 2390,
      calories_active: 512,
      steps: 10211,
      distance: 8120,
      low: 250,
      medium: 46,
      high: 10,
      timezone_offset: -18000,
    },
  ]);
  expect(batches.find((batch) => batch.resource === 'heartrate')?.data).toEqual([
    { timestamp: '2026-11-20T08:05:00+00:00', value: 61, unit: 'bpm', timezone_offset: 0 },
  ]);
});

test('offsets of ISO 8601 times', () => {
  expect([offsetSeconds('2026-11-20T08:05:00Z'), offsetSeconds('2026-11-20T08:05:00+05:30'), offsetSeconds('2026-11-20T08:05:00.000-0800')]).toEqual([
    0, 19800, -28800,
  ]);
});
