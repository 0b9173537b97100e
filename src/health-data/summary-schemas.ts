import { z } from 'zod';
import { isoDate } from '../common/schemas';

/**
 * What each summary type must carry on ingestion: the fields the SDK requires when it reads the
 * summary back (so a stored summary always parses), in Junction's names. Other fields pass
 * through as sent. `id` is optional: without it the summary's natural key names it.
 */
const dateTime = z.iso.datetime({ offset: true });
const num = z.number().refine(Number.isFinite, { message: 'Must be a finite number.' });
const optionalNum = num.nullish();
const seconds = num.min(0);

const base = { id: z.uuid().optional() };

export const SUMMARY_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  activity: z.looseObject({
    ...base,
    calendar_date: isoDate,
    calories_total: optionalNum,
    calories_active: optionalNum,
    steps: optionalNum,
    distance: optionalNum,
    low: optionalNum,
    medium: optionalNum,
    high: optionalNum,
    floors_climbed: optionalNum,
    timezone_offset: z.number().int().nullish(),
  }),
  body: z.looseObject({ ...base, calendar_date: isoDate, weight: optionalNum, fat: optionalNum }),
  sleep: z.looseObject({
    ...base,
    calendar_date: isoDate,
    bedtime_start: dateTime,
    bedtime_stop: dateTime,
    type: z.string().min(1).max(64).default('long_sleep'),
    duration: seconds,
    total: seconds,
    awake: seconds,
    light: seconds,
    rem: seconds,
    deep: seconds,
  }),
  workouts: z.looseObject({
    ...base,
    calendar_date: isoDate,
    time_start: dateTime,
    time_end: dateTime,
    provider_id: z.string().min(1).max(255),
    sport: z.looseObject({ id: z.number().int(), name: z.string(), slug: z.string() }).optional(),
    stream: z.record(z.string(), z.array(z.number().nullable())).optional(),
  }),
  profile: z.looseObject({ ...base, height: optionalNum, birth_date: isoDate.nullish() }),
  meal: z.looseObject({ ...base, provider_id: z.string().min(1).max(255), timestamp: dateTime, name: z.string().max(1000) }),
  menstrual_cycle: z.looseObject({ ...base, period_start: isoDate }),
  electrocardiogram: z.looseObject({
    ...base,
    session_start: dateTime,
    session_end: dateTime,
    voltage_sample_count: z.number().int().min(0),
  }),
  sleep_cycle: z.looseObject({
    ...base,
    sleep_id: z.uuid(),
    session_start: dateTime,
    session_end: dateTime,
    stage_start_offset_second: z.array(num),
    stage_end_offset_second: z.array(num),
    stage_type: z.array(z.number().int()),
  }),
  devices: z.looseObject({ ...base, provider_id: z.string().min(1).max(255) }),
};

/** The fields labflow owns on every summary: never stored from the sender's copy. */
export const OWNED_FIELDS = ['id', 'user_id', 'source', 'created_at', 'updated_at', 'stream'] as const;
