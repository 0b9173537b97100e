import type { WhoopCycle, WhoopRecovery, WhoopSleep, WhoopWorkout } from '../../src/adapters/whoop/whoop-api';
import { whoopBatches } from '../../src/adapters/whoop/whoop-mapping';

/** WHOOP's records as Junction's summaries (src/adapters/whoop/whoop-mapping.ts), field by field. */

const USER = 'a7c1e3f0-0000-4000-8000-000000000001';

const sleep = (overrides: Partial<WhoopSleep> = {}): WhoopSleep => ({
  id: 'ecfc6a15-4661-442f-a9a4-f160dd7afae8',
  cycle_id: 93845,
  // 23:10 to 07:02 in New York (UTC−05:00).
  start: '2026-11-20T04:10:00.000Z',
  end: '2026-11-20T12:02:00.000Z',
  timezone_offset: '-05:00',
  nap: false,
  score_state: 'SCORED',
  score: {
    stage_summary: {
      total_in_bed_time_milli: 28_320_000,
      total_awake_time_milli: 1_920_000,
      total_no_data_time_milli: 0,
      total_light_sleep_time_milli: 13_200_000,
      total_slow_wave_sleep_time_milli: 6_600_000,
      total_rem_sleep_time_milli: 6_600_000,
      sleep_cycle_count: 4,
      disturbance_count: 11,
    },
    respiratory_rate: 15.2,
    sleep_performance_percentage: 91,
    sleep_consistency_percentage: 80,
    sleep_efficiency_percentage: 93.2,
  },
  ...overrides,
});

const recovery: WhoopRecovery = {
  cycle_id: 93845,
  sleep_id: 'ecfc6a15-4661-442f-a9a4-f160dd7afae8',
  score_state: 'SCORED',
  score: { recovery_score: 68, resting_heart_rate: 52, hrv_rmssd_milli: 61.4, spo2_percentage: 96.1, skin_temp_celsius: 33.6 },
};

const workout = (overrides: Partial<WhoopWorkout> = {}): WhoopWorkout => ({
  id: '3c1b2a55-0000-4000-8000-000000000010',
  start: '2026-11-20T22:30:00.000Z',
  end: '2026-11-20T23:15:00.000Z',
  timezone_offset: '-05:00',
  sport_name: 'Running',
  sport_id: 0,
  score_state: 'SCORED',
  score: {
    strain: 11.2,
    average_heart_rate: 148,
    max_heart_rate: 176,
    kilojoule: 2092,
    percent_recorded: 100,
    distance_meter: 7020.5,
    altitude_gain_meter: 41.2,
    zone_durations: {
      zone_zero_milli: 60_000,
      zone_one_milli: 300_000,
      zone_two_milli: 900_000,
      zone_three_milli: 1_080_000,
      zone_four_milli: 360_000,
      zone_five_milli: 0,
    },
  },
  ...overrides,
});

const cycle = (overrides: Partial<WhoopCycle> = {}): WhoopCycle => ({
  id: 93845,
  // Began at 23:10 on the 19th (New York), at sleep onset: the cycle of the 20th.
  start: '2026-11-20T04:10:00.000Z',
  end: '2026-11-21T04:40:00.000Z',
  timezone_offset: '-05:00',
  score_state: 'SCORED',
  score: { strain: 12.9, kilojoule: 9205, average_heart_rate: 71, max_heart_rate: 176 },
  ...overrides,
});

const summaries = (records: Partial<Parameters<typeof whoopBatches>[0]>, resource: string) =>
  whoopBatches({ sleeps: [], recoveries: [], workouts: [], cycles: [], ...records }, USER).find((batch) => batch.resource === resource)?.data;

test("a night's sleep in the wearer's local time, its stages in seconds, with its recovery's resting heart rate, HRV and skin temperature", () => {
  const batch = whoopBatches({ sleeps: [sleep()], recoveries: [recovery], workouts: [], cycles: [] }, USER).find((each) => each.resource === 'sleep')!;
  expect(batch).toMatchObject({ kind: 'summary', resource: 'sleep', sourceType: 'watch' });
  expect(batch.data).toEqual([
    {
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      calendar_date: '2026-11-20',
      bedtime_start: '2026-11-19T23:10:00-05:00',
      bedtime_stop: '2026-11-20T07:02:00-05:00',
      type: 'long_sleep',
      timezone_offset: -5 * 3600,
      duration: 28_320,
      total: 26_400,
      awake: 1_920,
      light: 13_200,
      rem: 6_600,
      deep: 6_600,
      score: 91,
      efficiency: 93.2,
      respiratory_rate: 15.2,
      hr_resting: 52,
      average_hrv: 61.4,
      skin_temperature: 33.6,
    },
  ]);
});

test("the sleep's HRV, SpO₂ and respiratory rate are also samples at its end, where WHOOP reports them", () => {
  const batches = whoopBatches({ sleeps: [sleep()], recoveries: [recovery], workouts: [], cycles: [] }, USER);
  const at = { timestamp: '2026-11-20T07:02:00-05:00', timezone_offset: -5 * 3600 };
  expect(batches.filter((batch) => batch.kind === 'timeseries')).toEqual([
    { kind: 'timeseries', resource: 'hrv', sourceType: 'watch', data: [{ ...at, value: 61.4, unit: 'rmssd' }] },
    { kind: 'timeseries', resource: 'blood_oxygen', sourceType: 'watch', data: [{ ...at, value: 96.1, unit: '%' }] },
    { kind: 'timeseries', resource: 'respiratory_rate', sourceType: 'watch', data: [{ ...at, value: 15.2, unit: 'bpm' }] },
  ]);
  // An older strap reports no SpO₂; a sleep without its recovery, no HRV.
  const older = whoopBatches(
    { sleeps: [sleep()], recoveries: [{ ...recovery, score: { ...recovery.score!, spo2_percentage: undefined } }], workouts: [], cycles: [] },
    USER,
  );
  expect(older.map((batch) => batch.resource)).toEqual(['hrv', 'respiratory_rate', 'sleep']);
  expect(whoopBatches({ sleeps: [sleep()], recoveries: [], workouts: [], cycles: [] }, USER).map((batch) => batch.resource)).toEqual([
    'respiratory_rate',
    'sleep',
  ]);
});

test("a sleep's id follows WHOOP's id, not its times (a member may correct them), and differs per labflow user", () => {
  const idOf = (night: WhoopSleep, user = USER) =>
    whoopBatches({ sleeps: [night], recoveries: [], workouts: [], cycles: [] }, user).find((batch) => batch.resource === 'sleep')!.data[0].id;
  expect(idOf(sleep({ start: '2026-11-20T04:40:00.000Z' }))).toBe(idOf(sleep()));
  expect(idOf(sleep({ id: 'another-sleep' }))).not.toBe(idOf(sleep()));
  expect(idOf(sleep(), 'b8d2f4a1-0000-4000-8000-000000000002')).not.toBe(idOf(sleep()));
});

test('a nap is an acknowledged nap; a sleep without a (scored) recovery has no recovery fields', () => {
  const [nap] = summaries({ sleeps: [sleep({ id: 'a-nap', nap: true, start: '2026-11-20T19:00:00.000Z', end: '2026-11-20T19:40:00.000Z' })] }, 'sleep')!;
  expect(nap).toMatchObject({
    type: 'acknowledged_nap',
    calendar_date: '2026-11-20',
    duration: 2_400,
    hr_resting: null,
    average_hrv: null,
    skin_temperature: null,
  });
  const [unscoredRecovery] = summaries({ sleeps: [sleep()], recoveries: [{ ...recovery, score_state: 'PENDING_SCORE', score: undefined }] }, 'sleep')!;
  expect(unscoredRecovery).toMatchObject({ hr_resting: null, average_hrv: null });
});

test("a workout by WHOOP's id: local times, its sport as a slug, kcal from kJ, heart-rate zones in seconds", () => {
  expect(summaries({ workouts: [workout()] }, 'workouts')).toEqual([
    {
      provider_id: '3c1b2a55-0000-4000-8000-000000000010',
      calendar_date: '2026-11-20',
      time_start: '2026-11-20T17:30:00-05:00',
      time_end: '2026-11-20T18:15:00-05:00',
      timezone_offset: -5 * 3600,
      title: 'Running',
      sport: { id: 0, name: 'Running', slug: 'running' },
      average_hr: 148,
      max_hr: 176,
      calories: 500,
      distance: 7020.5,
      total_elevation_gain: 41.2,
      hr_zones: [60, 300, 900, 1080, 360, 0],
    },
  ]);
  const [lifting] = summaries(
    {
      workouts: [workout({ sport_name: 'Weightlifting - Olympic', score: { ...workout().score!, distance_meter: undefined, altitude_gain_meter: undefined } })],
    },
    'workouts',
  )!;
  expect(lifting).toMatchObject({ sport: { id: 0, name: 'Weightlifting olympic', slug: 'weightlifting_olympic' }, distance: null, total_elevation_gain: null });
});

test('a cycle is the activity of the day it covers (it began at the sleep onset before), energy in kcal; an unfinished one too', () => {
  expect(summaries({ cycles: [cycle()] }, 'activity')).toEqual([
    { calendar_date: '2026-11-20', calories_total: 2200, heart_rate: { avg_bpm: 71, max_bpm: 176 }, timezone_offset: -5 * 3600 },
  ]);
  const [today] = summaries({ cycles: [cycle({ id: 93846, start: '2026-11-21T04:40:00.000Z', end: undefined })] }, 'activity')!;
  expect(today).toMatchObject({ calendar_date: '2026-11-21' });
  // A cycle begun after midnight is still that day's.
  const [late] = summaries({ cycles: [cycle({ start: new Date(Date.parse('2026-11-22T05:30:00.000Z')).toISOString() })] }, 'activity')!;
  expect(late).toMatchObject({ calendar_date: '2026-11-22' });
});

test('records WHOOP has not scored (yet) are left out; nothing at all is no batch', () => {
  const pending = { score_state: 'PENDING_SCORE' as const, score: undefined };
  expect(whoopBatches({ sleeps: [sleep(pending)], recoveries: [], workouts: [workout(pending)], cycles: [cycle({ ...pending })] }, USER)).toEqual([]);
  expect(summaries({ sleeps: [sleep({ score_state: 'UNSCORABLE', score: undefined })] }, 'sleep')).toBeUndefined();
});
