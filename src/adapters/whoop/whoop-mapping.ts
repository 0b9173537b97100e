import { uuidV5 } from '../../common/uuid-v5';
import { atOffset, offsetOfLabel } from '../sources/iso-time';
import type { SourceBatch } from '../sources/source-adapter';
import type { WhoopCycle, WhoopRecovery, WhoopSleep, WhoopWorkout } from './whoop-api';

/**
 * WHOOP's records in Junction's shapes, as ingestion takes them. Pure: the adapter fetches, this
 * only translates, so it is tested on its own. Only scored records are mapped: a sleep, workout
 * or cycle WHOOP has not scored yet (`PENDING_SCORE`) has no stages, heart rate or energy, and is
 * stored once a later pull (the adapter looks a day back) finds it scored; `UNSCORABLE` ones
 * never are.
 */

/** The kind of device WHOOP is. */
export const WHOOP_SOURCE_TYPE = 'watch';

/** What a WHOOP connection delivers (its provider.connection.created `resource_availability`). */
export const WHOOP_RESOURCES: ReadonlyArray<Omit<SourceBatch, 'data'>> = [
  { kind: 'timeseries', resource: 'hrv', sourceType: WHOOP_SOURCE_TYPE },
  { kind: 'timeseries', resource: 'blood_oxygen', sourceType: WHOOP_SOURCE_TYPE },
  { kind: 'timeseries', resource: 'respiratory_rate', sourceType: WHOOP_SOURCE_TYPE },
  { kind: 'summary', resource: 'sleep', sourceType: WHOOP_SOURCE_TYPE },
  { kind: 'summary', resource: 'workouts', sourceType: WHOOP_SOURCE_TYPE },
  { kind: 'summary', resource: 'activity', sourceType: WHOOP_SOURCE_TYPE },
];

/** UUID v5 namespace of the ids of WHOOP sleeps in labflow (fixed forever: changing it changes every such id). */
const WHOOP_SLEEP_ID_NAMESPACE = '3d0f6c1a-7b52-4e8d-9a4f-2c61e85b0d93';

/** How far into a cycle its day is read (activitySummary). */
const CYCLE_DAY_SHIFT_MS = 12 * 3_600_000;

/** kJ → kcal (the thermochemical calorie). */
const KJ_PER_KCAL = 4.184;

export interface WhoopRecords {
  sleeps: WhoopSleep[];
  recoveries: WhoopRecovery[];
  workouts: WhoopWorkout[];
  cycles: WhoopCycle[];
}

/** `userId`: labflow's user, whose sleep ids are derived from WHOOP's (sleepSummary). */
export function whoopBatches(records: WhoopRecords, userId: string): SourceBatch[] {
  const sleeps = records.sleeps.filter(scored);
  const recoveryOf = new Map(records.recoveries.filter(scored).map((recovery) => [recovery.sleep_id, recovery]));
  const batch = (kind: SourceBatch['kind'], resource: string, data: Array<Record<string, unknown>>): SourceBatch => ({
    kind,
    resource,
    sourceType: WHOOP_SOURCE_TYPE,
    data,
  });
  const atWake = (sleep: WhoopSleep, value: number | undefined, unit: string) => (value === undefined ? [] : [wakeSample(sleep, value, unit)]);
  return [
    batch(
      'timeseries',
      'hrv',
      sleeps.flatMap((sleep) => atWake(sleep, recoveryOf.get(sleep.id)?.score?.hrv_rmssd_milli, 'rmssd')),
    ),
    batch(
      'timeseries',
      'blood_oxygen',
      sleeps.flatMap((sleep) => atWake(sleep, recoveryOf.get(sleep.id)?.score?.spo2_percentage, '%')),
    ),
    batch(
      'timeseries',
      'respiratory_rate',
      sleeps.flatMap((sleep) => atWake(sleep, sleep.score!.respiratory_rate, 'bpm')),
    ),
    batch(
      'summary',
      'sleep',
      sleeps.map((sleep) => sleepSummary(sleep, recoveryOf.get(sleep.id), userId)),
    ),
    batch('summary', 'workouts', records.workouts.filter(scored).map(workoutSummary)),
    batch('summary', 'activity', records.cycles.filter(scored).map(activitySummary)),
  ].filter((batch) => batch.data.length > 0);
}

/**
 * A value WHOOP measured over a sleep (its recovery's HRV and SpO₂, its respiratory rate) as one
 * sample at the sleep's end, where WHOOP reports it: WHOOP gives one figure per sleep, not a series.
 */
function wakeSample(sleep: WhoopSleep, value: number, unit: string): Record<string, unknown> {
  const offset = offsetOfLabel(sleep.timezone_offset);
  return { timestamp: atOffset(Date.parse(sleep.end), offset), value, unit, timezone_offset: offset };
}

const scored = (record: { score_state: string; score?: unknown }) => record.score_state === 'SCORED' && record.score !== undefined;

/** Milliseconds to whole seconds. */
const seconds = (milli: number) => Math.round(milli / 1000);

/** The local day (YYYY-MM-DD) of an instant at the wearer's offset. */
const localDay = (epochMs: number, offset: number) => atOffset(epochMs, offset).slice(0, 10);

/**
 * A sleep (the night's, or a nap), with its recovery's resting heart rate, HRV and skin
 * temperature: WHOOP measures those during the sleep the recovery names. Its day is the local
 * day it ended, as Junction dates a night. Its id is derived from WHOOP's (and the user): a
 * member who corrects a sleep's times in WHOOP changes its bedtime_start, which would otherwise
 * name a second night.
 */
export function sleepSummary(sleep: WhoopSleep, recovery: WhoopRecovery | undefined, userId: string): Record<string, unknown> {
  const stages = sleep.score!.stage_summary;
  const offset = offsetOfLabel(sleep.timezone_offset);
  const start = Date.parse(sleep.start);
  const end = Date.parse(sleep.end);
  const light = seconds(stages.total_light_sleep_time_milli);
  const deep = seconds(stages.total_slow_wave_sleep_time_milli);
  const rem = seconds(stages.total_rem_sleep_time_milli);
  return {
    id: uuidV5(`${userId}|${sleep.id}`, WHOOP_SLEEP_ID_NAMESPACE),
    calendar_date: localDay(end, offset),
    bedtime_start: atOffset(start, offset),
    bedtime_stop: atOffset(end, offset),
    type: sleep.nap ? 'acknowledged_nap' : 'long_sleep',
    timezone_offset: offset,
    duration: seconds(end - start),
    total: light + deep + rem,
    awake: seconds(stages.total_awake_time_milli),
    light,
    rem,
    deep,
    score: sleep.score!.sleep_performance_percentage ?? null,
    efficiency: sleep.score!.sleep_efficiency_percentage ?? null,
    respiratory_rate: sleep.score!.respiratory_rate ?? null,
    hr_resting: recovery?.score?.resting_heart_rate ?? null,
    average_hrv: recovery?.score?.hrv_rmssd_milli ?? null,
    skin_temperature: recovery?.score?.skin_temp_celsius ?? null,
  };
}

/**
 * A workout, named by WHOOP's id (`provider_id`). The sport is WHOOP's name for it as a slug
 * (`running`, `functional_fitness`); Junction's numeric sport ids are not published, so `id` is
 * 0, as labflow answers for a sport it has no id of. Heart-rate zones are WHOOP's six (zone 0–5),
 * in seconds.
 */
export function workoutSummary(workout: WhoopWorkout): Record<string, unknown> {
  const score = workout.score!;
  const offset = offsetOfLabel(workout.timezone_offset);
  const start = Date.parse(workout.start);
  const zones = score.zone_durations;
  const slug =
    workout.sport_name
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '') || 'other';
  return {
    provider_id: workout.id,
    calendar_date: localDay(start, offset),
    time_start: atOffset(start, offset),
    time_end: atOffset(Date.parse(workout.end), offset),
    timezone_offset: offset,
    title: workout.sport_name,
    sport: { id: 0, name: titleOf(slug), slug },
    average_hr: score.average_heart_rate,
    max_hr: score.max_heart_rate,
    calories: round1(score.kilojoule / KJ_PER_KCAL),
    distance: score.distance_meter ?? null,
    total_elevation_gain: score.altitude_gain_meter ?? null,
    hr_zones: [zones.zone_zero_milli, zones.zone_one_milli, zones.zone_two_milli, zones.zone_three_milli, zones.zone_four_milli, zones.zone_five_milli].map(
      seconds,
    ),
  };
}

/**
 * A physiological cycle (WHOOP's day: from falling asleep to falling asleep again) as the activity
 * of the day it is mostly made of: its energy and heart rate (WHOOP counts no steps). A cycle
 * begins at sleep onset, often the evening before the day it covers (23:00 Monday for Tuesday),
 * and an unfinished one has no end yet, so its day is the local day twelve hours after it began.
 */
export function activitySummary(cycle: WhoopCycle): Record<string, unknown> {
  const score = cycle.score!;
  const offset = offsetOfLabel(cycle.timezone_offset);
  return {
    calendar_date: localDay(Date.parse(cycle.start) + CYCLE_DAY_SHIFT_MS, offset),
    calories_total: round1(score.kilojoule / KJ_PER_KCAL),
    heart_rate: { avg_bpm: score.average_heart_rate, max_bpm: score.max_heart_rate },
    timezone_offset: offset,
  };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

function titleOf(slug: string): string {
  const words = slug.split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
