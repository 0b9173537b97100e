import { z } from 'zod';
import { offsetMinutes } from '../appointments/zoned-time';
import { RequestValidationError, type ValidationIssue } from '../common/errors';
import { isoDate } from '../common/schemas';
import { zodIssues } from '../common/validation';
import type { SummaryType } from './registry';
import { workoutStreamOf } from './sdk-workout-stream';
import { fieldSamples, type NestedSamples, sdkWorkoutStream, SLEEP_SAMPLE_FIELDS, streamSamples, WORKOUT_SAMPLE_FIELDS } from './sdk-nested-samples';
import { isSdkRecord, translateRecord, type TranslatedSummary } from './sdk-record-shapes';
import { sdkQuantitySample, sdkSourceType, type SdkQuantitySample } from './sdk-sample-shapes';
import { compact, hasField, optionalNumber, sdkDate, uuidOrUndefined } from './sdk-shape-parts';

/**
 * The mobile SDKs' summary payloads (vital-ios `SleepPatch.Sleep`, `ActivityPatch.Activity`,
 * `WorkoutPatch.Workout`, `BodyPatch`, `ProfilePatch`; vital-android's `LocalSleep`,
 * `LocalActivity`, `LocalWorkout`, `LocalBody`, `LocalProfile`) as they encode them, translated
 * into the summaries labflow stores and serves (Junction's `ClientFacing*` fields). Which shape
 * an item has is told by its fields (a sleep with `start_date` and no `bedtime_start`); one in
 * labflow's shape passes unchanged. Days are the envelope time zone's (`time_zone`), as the
 * phone counted them. docs/mobile.md lists the mapping field by field.
 */

const samples = z.array(sdkQuantitySample).max(100_000).nullish();

/** Where a summary came from: iOS's bundle and product, Android's `source_type`. */
const source = {
  source_bundle: z.string().max(255).nullish(),
  product_type: z.string().max(255).nullish(),
  source_type: z.string().max(64).nullish(),
};
const sourceTypeOf = (value: { source_bundle?: string | null; product_type?: string | null; source_type?: string | null }) =>
  sdkSourceType({ type: value.source_type, source_bundle: value.source_bundle, product_type: value.product_type });

const sdkSleep = z.looseObject({
  id: z.string().max(255).nullish(),
  ...source,
  ...Object.fromEntries(Object.keys(SLEEP_SAMPLE_FIELDS).map((field) => [field, samples])),
  start_date: sdkDate,
  end_date: sdkDate,
  heart_rate_minimum: optionalNumber,
  heart_rate_mean: optionalNumber,
  hrv_mean_sdnn: optionalNumber,
  respiratory_rate_mean: optionalNumber,
  score: optionalNumber,
  sleep_stages: z.record(z.string(), samples).nullish(),
});

const sdkWorkout = z.looseObject({
  id: z.string().max(255).nullish(),
  ...source,
  ...Object.fromEntries(Object.keys(WORKOUT_SAMPLE_FIELDS).map((field) => [field, samples])),
  stream: sdkWorkoutStream.nullish(),
  start_date: sdkDate,
  end_date: sdkDate,
  sport: z.string().min(1).max(128),
  moving_time: optionalNumber,
  calories: optionalNumber,
  distance: optionalNumber,
  ascent_elevation: optionalNumber,
  heart_rate_maximum: optionalNumber,
  heart_rate_mean: optionalNumber,
});

const daySummary = z.looseObject({
  calendar_date: isoDate,
  active_energy_burned_sum: optionalNumber,
  basal_energy_burned_sum: optionalNumber,
  steps_sum: optionalNumber,
  floors_climbed_sum: optionalNumber,
  distance_walking_running_sum: optionalNumber,
  low: optionalNumber,
  medium: optionalNumber,
  high: optionalNumber,
  max_heart_rate: optionalNumber,
  min_heart_rate: optionalNumber,
  avg_heart_rate: optionalNumber,
  resting_heart_rate: optionalNumber,
  wheelchair_use: z.boolean().nullish(),
  wheelchair_push: optionalNumber,
});
const ACTIVITY_SAMPLES = ['active_energy_burned', 'basal_energy_burned', 'steps', 'floors_climbed', 'distance_walking_running', 'vo2_max'] as const;
const sdkActivity = z.looseObject({
  day_summary: daySummary.nullish(),
  ...Object.fromEntries(ACTIVITY_SAMPLES.map((key) => [key, samples])),
});

const BODY_SAMPLES = ['body_mass', 'body_fat_percentage', 'body_mass_index', 'lean_body_mass', 'waist_circumference'] as const;
const sdkBody = z.looseObject({
  ...Object.fromEntries(BODY_SAMPLES.map((key) => [key, samples])),
  time_zones: z.array(z.tuple([isoDate, z.string().max(64)])).nullish(),
});

const sdkProfile = z.looseObject({
  biological_sex: z.enum(['male', 'female', 'other', 'not_set']).nullish(),
  date_of_birth: sdkDate.nullish(),
  height: optionalNumber,
  wheelchair_use: z.boolean().nullish(),
});

/** Sleep stage arrays (iOS snake_case, Android camelCase) and the stage each counts for. */
const STAGES: Readonly<Record<string, 'awake' | 'light' | 'rem' | 'deep'>> = {
  awake_sleep_samples: 'awake',
  awakeSleepSamples: 'awake',
  light_sleep_samples: 'light',
  lightSleepSamples: 'light',
  unspecified_sleep_samples: 'light',
  rem_sleep_samples: 'rem',
  remSleepSamples: 'rem',
  deep_sleep_samples: 'deep',
  deepSleepSamples: 'deep',
};

/** Whether an item (or the iOS SDK's single body or profile object) is in an SDK's shape. */
export function isSdkSummary(type: string, item: unknown): boolean {
  switch (type) {
    case 'sleep':
      return hasField(item, 'start_date') && !hasField(item, 'bedtime_start');
    case 'workouts':
      return hasField(item, 'start_date') && !hasField(item, 'time_start');
    case 'activity':
      return !hasField(item, 'calendar_date') && (hasField(item, 'day_summary') || ACTIVITY_SAMPLES.some((key) => hasField(item, key)));
    case 'body':
      return !hasField(item, 'calendar_date') && BODY_SAMPLES.some((key) => hasField(item, key));
    case 'profile':
      return hasField(item, 'date_of_birth') || hasField(item, 'biological_sex');
    default:
      return isSdkRecord(type, item);
  }
}

/** A request's summaries in labflow's shape, each one's source type (undefined: the request's), and the samples that came inside them. */
export interface SdkSummaries {
  items: unknown[];
  sourceTypes: Array<string | undefined>;
  samples: NestedSamples[];
}

/**
 * The summaries of a request in labflow's shape. `data` may be one object (iOS's body and
 * profile). An SDK-shaped item that does not parse fails the request with the SDK's field
 * names; a body object may become several summaries (one per day), so the loc of a later 422
 * on a translated item names the item it came from.
 */
export function fromSdkSummaries(type: SummaryType, data: unknown[] | Record<string, unknown>, timeZone: string): SdkSummaries {
  const items = Array.isArray(data) ? data : [data];
  const out: SdkSummaries = { items: [], sourceTypes: [], samples: [] };
  const issues: ValidationIssue[] = [];
  for (let index = 0; index < items.length && issues.length < 20; index++) {
    const item = items[index];
    if (!isSdkSummary(type.slug, item)) {
      out.items.push(item);
      out.sourceTypes.push(undefined);
      continue;
    }
    const loc = ['body', 'data', ...(Array.isArray(data) ? [index] : [])];
    const translated = translate(type.slug, item, timeZone, loc);
    if (translated instanceof z.ZodError) {
      issues.push(...zodIssues(translated, item, loc));
      continue;
    }
    for (const { summary, sourceType, samples: nested } of translated) {
      for (const group of nested ?? []) out.samples.push({ ...group, item: out.items.length });
      out.items.push(summary);
      out.sourceTypes.push(sourceType);
    }
  }
  if (issues.length > 0) throw new RequestValidationError(issues);
  return out;
}

function translate(type: string, item: unknown, timeZone: string, loc: Array<string | number>): TranslatedSummary[] | z.ZodError {
  if (type === 'meal' || type === 'menstrual_cycle' || type === 'electrocardiogram') return translateRecord(type, item, loc);
  const schema = { sleep: sdkSleep, workouts: sdkWorkout, activity: sdkActivity, body: sdkBody, profile: sdkProfile }[type];
  const parsed = schema?.safeParse(item);
  if (!parsed) return [];
  if (!parsed.success) return parsed.error;
  const value = parsed.data as Record<string, unknown>;
  const plain = (summaries: Array<Record<string, unknown>>) => summaries.map((summary) => ({ summary }));
  if (type === 'sleep') {
    const sleep = value as z.output<typeof sdkSleep>;
    return [{ summary: sleepOf(sleep, timeZone), sourceType: sourceTypeOf(sleep), samples: fieldSamples(SLEEP_SAMPLE_FIELDS, value, loc) }];
  }
  if (type === 'workouts') {
    const workout = value as z.output<typeof sdkWorkout>;
    const samples = [...fieldSamples(WORKOUT_SAMPLE_FIELDS, value, loc), ...(workout.stream ? streamSamples(workout.stream, loc) : [])];
    const stream = workoutStreamOf(samples);
    return [{ summary: { ...workoutOf(workout, timeZone), ...(stream ? { stream } : {}) }, sourceType: sourceTypeOf(workout), samples }];
  }
  if (type === 'activity') return plain(activityOf(value as z.output<typeof sdkActivity>, timeZone));
  if (type === 'body') return plain(bodiesOf(value as z.output<typeof sdkBody>, timeZone));
  return plain([profileOf(value as z.output<typeof sdkProfile>)]);
}

/** The calendar day of an instant in a time zone. */
export function localDay(iso: string, timeZone: string): string {
  const ms = Date.parse(iso);
  return new Date(ms + offsetMinutes(ms, timeZone) * 60_000).toISOString().slice(0, 10);
}

const seconds = (sample: { start_date: string; end_date: string }) => Math.max(0, (Date.parse(sample.end_date) - Date.parse(sample.start_date)) / 1000);

function sleepOf(sleep: z.output<typeof sdkSleep>, timeZone: string): Record<string, unknown> {
  const stages = { awake: 0, light: 0, rem: 0, deep: 0 };
  for (const [key, list] of Object.entries(sleep.sleep_stages ?? {})) {
    const stage = STAGES[key];
    if (stage) for (const sample of list ?? []) stages[stage] += seconds(sample);
  }
  const start = Date.parse(sleep.start_date);
  return compact({
    id: uuidOrUndefined(sleep.id),
    calendar_date: localDay(sleep.end_date, timeZone),
    bedtime_start: sleep.start_date,
    bedtime_stop: sleep.end_date,
    type: 'long_sleep',
    timezone_offset: offsetMinutes(start, timeZone) * 60,
    duration: seconds(sleep),
    total: stages.light + stages.rem + stages.deep,
    ...stages,
    hr_lowest: sleep.heart_rate_minimum,
    hr_average: sleep.heart_rate_mean,
    average_hrv: sleep.hrv_mean_sdnn,
    respiratory_rate: sleep.respiratory_rate_mean,
    score: sleep.score,
  });
}

function workoutOf(workout: z.output<typeof sdkWorkout>, timeZone: string): Record<string, unknown> {
  const sportSlug =
    workout.sport
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '') || 'other';
  const zones = [1, 2, 3, 4, 5, 6].map((n) => workout[`heart_rate_zone${n}`] ?? workout[`heart_rate_zone_${n}`]);
  return compact({
    id: uuidOrUndefined(workout.id),
    // Named by the SDK's id, else by its start and sport: a workout sent again replaces itself.
    provider_id: workout.id ?? `${new Date(Date.parse(workout.start_date)).toISOString()}|${sportSlug}`,
    calendar_date: localDay(workout.start_date, timeZone),
    time_start: workout.start_date,
    time_end: workout.end_date,
    timezone_offset: offsetMinutes(Date.parse(workout.start_date), timeZone) * 60,
    title: workout.sport,
    sport: { id: 0, name: workout.sport, slug: sportSlug },
    moving_time: workout.moving_time,
    calories: workout.calories,
    distance: workout.distance,
    total_elevation_gain: workout.ascent_elevation,
    average_hr: workout.heart_rate_mean,
    max_hr: workout.heart_rate_maximum,
    hr_zones: zones.some((zone) => typeof zone === 'number') ? zones.map((zone) => (typeof zone === 'number' ? zone : 0)) : undefined,
  });
}

const sum = (list: SdkQuantitySample[] | null | undefined) => (list && list.length > 0 ? list.reduce((total, sample) => total + sample.value, 0) : undefined);

function activityOf(activity: z.output<typeof sdkActivity>, timeZone: string): Array<Record<string, unknown>> {
  const lists = activity as unknown as Record<(typeof ACTIVITY_SAMPLES)[number], SdkQuantitySample[] | null | undefined>;
  const day = activity.day_summary;
  const first = ACTIVITY_SAMPLES.map((key) => lists[key]?.[0]).find((sample) => sample !== undefined);
  const calendarDate = day?.calendar_date ?? (first ? localDay(first.start_date, timeZone) : undefined);
  // Nothing to count: no summary (the SDK sends none; another sender learns nothing is stored).
  if (!calendarDate) return [];
  const active = day?.active_energy_burned_sum ?? sum(lists.active_energy_burned);
  const basal = day?.basal_energy_burned_sum ?? sum(lists.basal_energy_burned);
  const heartRate = compact({
    min_bpm: day?.min_heart_rate,
    avg_bpm: day?.avg_heart_rate,
    max_bpm: day?.max_heart_rate,
    resting_bpm: day?.resting_heart_rate,
  });
  return [
    compact({
      calendar_date: calendarDate,
      calories_active: active,
      calories_total: active !== undefined || basal !== undefined ? (active ?? 0) + (basal ?? 0) : undefined,
      steps: day?.steps_sum ?? sum(lists.steps),
      distance: day?.distance_walking_running_sum ?? sum(lists.distance_walking_running),
      floors_climbed: day?.floors_climbed_sum ?? sum(lists.floors_climbed),
      low: day?.low,
      medium: day?.medium,
      high: day?.high,
      heart_rate: Object.keys(heartRate).length > 0 ? heartRate : undefined,
      wheelchair_use: day?.wheelchair_use,
      wheelchair_push: day?.wheelchair_push,
      time_zone: timeZone,
    }),
  ];
}

/** One body summary per day the samples fall on (in that day's zone where the SDK says it), each field its day's latest sample. */
function bodiesOf(body: z.output<typeof sdkBody>, timeZone: string): Array<Record<string, unknown>> {
  const zones = new Map(body.time_zones ?? []);
  const fields: Record<(typeof BODY_SAMPLES)[number], string> = {
    body_mass: 'weight',
    body_fat_percentage: 'fat',
    body_mass_index: 'body_mass_index',
    lean_body_mass: 'lean_body_mass_kilogram',
    waist_circumference: 'waist_circumference_centimeter',
  };
  const days = new Map<string, { values: Record<string, unknown>; at: Record<string, number> }>();
  const lists = body as unknown as Record<(typeof BODY_SAMPLES)[number], SdkQuantitySample[] | null | undefined>;
  for (const key of BODY_SAMPLES) {
    for (const sample of lists[key] ?? []) {
      const guess = localDay(sample.start_date, timeZone);
      const zone = zones.get(guess);
      const day = zone && isZone(zone) ? localDay(sample.start_date, zone) : guess;
      const entry = days.get(day) ?? { values: { calendar_date: day }, at: {} };
      days.set(day, entry);
      const at = Date.parse(sample.start_date);
      if (!(entry.at[key] > at)) {
        entry.at[key] = at;
        entry.values[fields[key]] = sample.value;
      }
    }
  }
  return [...days.values()].map((entry) => entry.values);
}

function isZone(zone: string): boolean {
  try {
    offsetMinutes(0, zone);
    return true;
  } catch {
    return false;
  }
}

function profileOf(profile: z.output<typeof sdkProfile>): Record<string, unknown> {
  return compact({
    height: profile.height,
    // The SDK writes the birth day as UTC midnight.
    birth_date: profile.date_of_birth ? new Date(Date.parse(profile.date_of_birth)).toISOString().slice(0, 10) : undefined,
    sex: profile.biological_sex && profile.biological_sex !== 'not_set' ? profile.biological_sex : undefined,
    wheelchair_use: profile.wheelchair_use,
  });
}
