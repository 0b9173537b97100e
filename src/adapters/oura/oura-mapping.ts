import { atOffset, offsetSeconds } from '../sources/iso-time';
import type { SourceBatch } from '../sources/source-adapter';
import type { OuraDailyActivity, OuraDailySleep, OuraHeartRate, OuraSleep } from './oura-api';

/**
 * Oura's documents in Junction's shapes, as ingestion takes them (the sandbox's Oura delivers the
 * same resources). Pure: the adapter fetches, this only translates, so it is tested on its own.
 */

/** The kind of device Oura is. */
export const OURA_SOURCE_TYPE = 'ring';

/** What an Oura connection delivers (its provider.connection.created `resource_availability`). */
export const OURA_RESOURCES: ReadonlyArray<Omit<SourceBatch, 'data'>> = [
  { kind: 'timeseries', resource: 'heartrate', sourceType: OURA_SOURCE_TYPE },
  { kind: 'timeseries', resource: 'hrv', sourceType: OURA_SOURCE_TYPE },
  { kind: 'timeseries', resource: 'hypnogram', sourceType: OURA_SOURCE_TYPE },
  { kind: 'summary', resource: 'sleep', sourceType: OURA_SOURCE_TYPE },
  { kind: 'summary', resource: 'activity', sourceType: OURA_SOURCE_TYPE },
];

/** Oura's sleep types in Junction's (SleepType); `deleted` periods are left out. */
const SLEEP_TYPES: Record<string, string> = { long_sleep: 'long_sleep', sleep: 'short_sleep', late_nap: 'acknowledged_nap', rest: 'unknown' };

/** A hypnogram step of Oura's `sleep_phase_5_min`. */
const PHASE_SECONDS = 300;

export interface OuraDocuments {
  heartRate: OuraHeartRate[];
  sleep: OuraSleep[];
  dailySleep: OuraDailySleep[];
  dailyActivity: OuraDailyActivity[];
}

export { offsetSeconds };

export function ouraBatches(documents: OuraDocuments): SourceBatch[] {
  const sleeps = documents.sleep.filter((sleep) => sleep.type in SLEEP_TYPES);
  const scores = new Map(documents.dailySleep.map((day) => [day.day, day.score]));
  const batch = (kind: SourceBatch['kind'], resource: string, data: Array<Record<string, unknown>>): SourceBatch => ({
    kind,
    resource,
    sourceType: OURA_SOURCE_TYPE,
    data,
  });
  return [
    batch('timeseries', 'heartrate', documents.heartRate.map(heartRateSample)),
    batch('timeseries', 'hrv', sleeps.flatMap(hrvSamples)),
    batch('timeseries', 'hypnogram', sleeps.flatMap(hypnogram)),
    batch(
      'summary',
      'sleep',
      sleeps.map((sleep) => sleepSummary(sleep, sleep.type === 'long_sleep' ? (scores.get(sleep.day) ?? null) : null)),
    ),
    batch('summary', 'activity', documents.dailyActivity.map(activitySummary)),
  ].filter((batch) => batch.data.length > 0);
}

function heartRateSample(sample: OuraHeartRate): Record<string, unknown> {
  return { timestamp: sample.timestamp, value: sample.bpm, unit: 'bpm', timezone_offset: offsetSeconds(sample.timestamp) };
}

/** The night's HRV series (5-minute averages): one sample per item Oura measured. */
function hrvSamples(sleep: OuraSleep): Array<Record<string, unknown>> {
  const series = sleep.hrv;
  if (!series) return [];
  const start = Date.parse(series.timestamp);
  const offset = offsetSeconds(series.timestamp);
  return series.items.flatMap((value, index) =>
    value === null ? [] : [{ timestamp: atOffset(start + index * series.interval * 1000, offset), value, unit: 'rmssd', timezone_offset: offset }],
  );
}

/** Oura's 5-minute phases (1 deep, 2 light, 3 REM, 4 awake: Junction's stage numbers too), runs of one stage as one interval. */
function hypnogram(sleep: OuraSleep): Array<Record<string, unknown>> {
  const phases = sleep.sleep_phase_5_min ?? '';
  const start = Date.parse(sleep.bedtime_start);
  const offset = offsetSeconds(sleep.bedtime_start);
  const intervals: Array<Record<string, unknown>> = [];
  for (let index = 0; index < phases.length;) {
    let end = index + 1;
    while (end < phases.length && phases[end] === phases[index]) end++;
    const stage = Number(phases[index]);
    if (stage >= 1 && stage <= 4) {
      intervals.push({
        start: atOffset(start + index * PHASE_SECONDS * 1000, offset),
        end: atOffset(start + end * PHASE_SECONDS * 1000, offset),
        value: stage,
        unit: 'stage',
        timezone_offset: offset,
      });
    }
    index = end;
  }
  return intervals;
}

function sleepSummary(sleep: OuraSleep, score: number | null): Record<string, unknown> {
  return {
    calendar_date: sleep.day,
    bedtime_start: sleep.bedtime_start,
    bedtime_stop: sleep.bedtime_end,
    type: SLEEP_TYPES[sleep.type],
    timezone_offset: offsetSeconds(sleep.bedtime_start),
    duration: sleep.time_in_bed,
    total: sleep.total_sleep_duration ?? 0,
    awake: sleep.awake_time ?? 0,
    light: sleep.light_sleep_duration ?? 0,
    rem: sleep.rem_sleep_duration ?? 0,
    deep: sleep.deep_sleep_duration ?? 0,
    efficiency: sleep.efficiency,
    latency: sleep.latency,
    hr_average: sleep.average_heart_rate,
    hr_lowest: sleep.lowest_heart_rate,
    average_hrv: sleep.average_hrv,
    respiratory_rate: sleep.average_breath,
    temperature_delta: sleep.readiness?.temperature_deviation ?? null,
    score,
  };
}

function activitySummary(day: OuraDailyActivity): Record<string, unknown> {
  const minutes = (seconds: number | null) => (seconds === null ? null : Math.round(seconds / 60));
  return {
    calendar_date: day.day,
    calories_total: day.total_calories,
    calories_active: day.active_calories,
    steps: day.steps,
    distance: day.equivalent_walking_distance,
    low: minutes(day.low_activity_time),
    medium: minutes(day.medium_activity_time),
    high: minutes(day.high_activity_time),
    timezone_offset: offsetSeconds(day.timestamp),
  };
}
