/**
 * The health-data resource registry: every timeseries resource and summary type labflow knows
 * (the Junction SDK's `client.vitals.*`, `client.<summary>.get`), declared once. Routes,
 * validation, storage keys, reads, introspection and event names all derive from these tables;
 * adding a resource is one line here.
 */

/**
 * How a timeseries sample is shaped:
 * - `discrete`: a reading at one instant (`timestamp`, `value`);
 * - `interval`: an amount over [start, end) (`start`, `end`, `value`; `timestamp` = start);
 * - `blood_pressure`: a reading with `systolic` and `diastolic` instead of `value`;
 * - `note`: an interval whose `value` is text, with optional `tags`.
 */
export type SampleKind = 'discrete' | 'interval' | 'blood_pressure' | 'note';

export interface TimeseriesResource {
  /** The REST path segment and stored resource name (`/v2/timeseries/{user_id}/<slug>`). */
  slug: string;
  kind: SampleKind;
  /** The one unit samples are stored and served in (the SDK fixes most of them). */
  unit: string;
  /** `daily.data.<event>.created|updated` (Junction says `fat`/`weight` where paths say body_fat/body_weight). */
  event: string;
  /** Served by the deprecated ungrouped route too (`GET /v2/timeseries/{user_id}/<slug>`). */
  legacy?: boolean;
  /** The sample `type`: its allowed values (null: any text), whether required, whether part of the sample key. */
  sampleType?: { values: readonly string[] | null; required: boolean; inKey: boolean };
  /** An extra enum field the sample may carry (stored beside the value). */
  extra?: { field: string; values: readonly string[] };
}

const SENSOR_LOCATIONS = [
  'armpit',
  'body',
  'ear',
  'finger',
  'gastrointestinal',
  'mouth',
  'rectum',
  'toe',
  'eardrum',
  'temporal_artery',
  'forehead',
  'wrist',
] as const;

const typed = (values: readonly string[] | null, inKey = true) => ({ values, required: true, inKey });

/** Every timeseries resource of SDK 3.1.551 (51: one per `client.vitals.*Grouped`), alphabetical. */
export const TIMESERIES_RESOURCES: readonly TimeseriesResource[] = [
  { slug: 'afib_burden', kind: 'interval', unit: '%', event: 'afib_burden' },
  { slug: 'basal_body_temperature', kind: 'interval', unit: '\u00B0C', event: 'basal_body_temperature' },
  { slug: 'blood_oxygen', kind: 'discrete', unit: '%', event: 'blood_oxygen', legacy: true },
  { slug: 'blood_pressure', kind: 'blood_pressure', unit: 'mmHg', event: 'blood_pressure', legacy: true },
  { slug: 'body_fat', kind: 'discrete', unit: '%', event: 'fat', legacy: true },
  { slug: 'body_mass_index', kind: 'interval', unit: 'index', event: 'body_mass_index' },
  { slug: 'body_temperature', kind: 'interval', unit: '\u00B0C', event: 'body_temperature', extra: { field: 'sensor_location', values: SENSOR_LOCATIONS } },
  {
    slug: 'body_temperature_delta',
    kind: 'interval',
    unit: '\u00B0C',
    event: 'body_temperature_delta',
    extra: { field: 'sensor_location', values: SENSOR_LOCATIONS },
  },
  { slug: 'body_weight', kind: 'discrete', unit: 'kg', event: 'weight', legacy: true },
  { slug: 'caffeine', kind: 'interval', unit: 'g', event: 'caffeine', legacy: true },
  { slug: 'calories_active', kind: 'interval', unit: 'kcal', event: 'calories_active', legacy: true },
  { slug: 'calories_basal', kind: 'discrete', unit: 'kcal', event: 'calories_basal', legacy: true },
  { slug: 'carbohydrates', kind: 'interval', unit: 'g', event: 'carbohydrates' },
  { slug: 'cholesterol', kind: 'discrete', unit: 'mg/dL', event: 'cholesterol', legacy: true, sampleType: typed(['total', 'ldl', 'hdl', 'triglycerides']) },
  { slug: 'daylight_exposure', kind: 'interval', unit: 'min', event: 'daylight_exposure' },
  { slug: 'distance', kind: 'interval', unit: 'm', event: 'distance', legacy: true },
  { slug: 'electrocardiogram_voltage', kind: 'discrete', unit: 'mV', event: 'electrocardiogram_voltage', legacy: true, sampleType: typed(null) },
  { slug: 'fall', kind: 'interval', unit: 'count', event: 'fall' },
  { slug: 'floors_climbed', kind: 'discrete', unit: 'count', event: 'floors_climbed', legacy: true },
  { slug: 'forced_expiratory_volume_1', kind: 'interval', unit: 'L', event: 'forced_expiratory_volume_1' },
  { slug: 'forced_vital_capacity', kind: 'interval', unit: 'L', event: 'forced_vital_capacity' },
  { slug: 'glucose', kind: 'discrete', unit: 'mmol/L', event: 'glucose', legacy: true },
  { slug: 'handwashing', kind: 'interval', unit: 'count', event: 'handwashing' },
  {
    slug: 'heart_rate_alert',
    kind: 'interval',
    unit: 'count',
    event: 'heart_rate_alert',
    sampleType: typed(['low_heart_rate', 'high_heart_rate', 'irregular_rhythm']),
  },
  { slug: 'heart_rate_recovery_one_minute', kind: 'interval', unit: 'count', event: 'heart_rate_recovery_one_minute' },
  { slug: 'heartrate', kind: 'discrete', unit: 'bpm', event: 'heartrate', legacy: true },
  { slug: 'hrv', kind: 'discrete', unit: 'rmssd', event: 'hrv', legacy: true },
  { slug: 'hypnogram', kind: 'interval', unit: 'stage', event: 'hypnogram', legacy: true },
  { slug: 'ige', kind: 'discrete', unit: 'FSU', event: 'ige', legacy: true, sampleType: typed(null) },
  { slug: 'igg', kind: 'discrete', unit: 'FSU', event: 'igg', legacy: true, sampleType: typed(null) },
  { slug: 'inhaler_usage', kind: 'interval', unit: 'count', event: 'inhaler_usage' },
  { slug: 'insulin_injection', kind: 'interval', unit: 'unit', event: 'insulin_injection', sampleType: typed(['rapid_acting', 'long_acting']) },
  { slug: 'lean_body_mass', kind: 'interval', unit: 'kg', event: 'lean_body_mass' },
  { slug: 'mindfulness_minutes', kind: 'interval', unit: 'min', event: 'mindfulness_minutes', legacy: true },
  { slug: 'note', kind: 'note', unit: 'text', event: 'note' },
  { slug: 'peak_expiratory_flow_rate', kind: 'interval', unit: 'L/min', event: 'peak_expiratory_flow_rate' },
  { slug: 'respiratory_rate', kind: 'discrete', unit: 'bpm', event: 'respiratory_rate', legacy: true },
  { slug: 'sleep_apnea_alert', kind: 'interval', unit: 'count', event: 'sleep_apnea_alert' },
  {
    slug: 'sleep_breathing_disturbance',
    kind: 'interval',
    unit: 'count',
    event: 'sleep_breathing_disturbance',
    sampleType: { values: ['elevated', 'not_elevated'], required: false, inKey: false },
  },
  { slug: 'stand_duration', kind: 'interval', unit: 'min', event: 'stand_duration' },
  { slug: 'stand_hour', kind: 'interval', unit: 'count', event: 'stand_hour', sampleType: typed(['stood', 'idle'], false) },
  { slug: 'steps', kind: 'interval', unit: 'count', event: 'steps', legacy: true },
  { slug: 'stress_level', kind: 'discrete', unit: 'stress_level', event: 'stress_level', legacy: true },
  { slug: 'uv_exposure', kind: 'interval', unit: 'index', event: 'uv_exposure' },
  { slug: 'vo2_max', kind: 'interval', unit: 'mL/kg/min', event: 'vo2_max', legacy: true },
  { slug: 'waist_circumference', kind: 'interval', unit: 'cm', event: 'waist_circumference' },
  { slug: 'water', kind: 'discrete', unit: 'mL', event: 'water', legacy: true },
  { slug: 'wheelchair_push', kind: 'interval', unit: 'count', event: 'wheelchair_push' },
  { slug: 'workout_distance', kind: 'interval', unit: 'm', event: 'workout_distance' },
  { slug: 'workout_duration', kind: 'interval', unit: 'min', event: 'workout_duration', extra: { field: 'intensity', values: ['low', 'medium', 'high'] } },
  { slug: 'workout_swimming_stroke', kind: 'interval', unit: 'count', event: 'workout_swimming_stroke' },
];

/**
 * Summary types: one object per id (the latest version replaces earlier ones). `key` names the
 * field that identifies a summary within (user, type, provider) when the sender gives no `id`;
 * `date` the field the `start_date`/`end_date` filter reads (a date or a datetime); `list` the
 * response key (`{activity: [...]}`); `raw` whether a `/raw` read exists.
 */
export interface SummaryType {
  slug: string;
  key: string | null;
  date: string | null;
  list: string;
  event: string;
  raw: boolean;
}

export const SUMMARY_TYPES: readonly SummaryType[] = [
  { slug: 'activity', key: 'calendar_date', date: 'calendar_date', list: 'activity', event: 'activity', raw: true },
  { slug: 'body', key: 'calendar_date', date: 'calendar_date', list: 'body', event: 'body', raw: true },
  { slug: 'devices', key: 'provider_id', date: null, list: 'devices', event: 'device', raw: true },
  { slug: 'electrocardiogram', key: 'session_start', date: 'session_start', list: 'electrocardiogram', event: 'electrocardiogram', raw: false },
  { slug: 'meal', key: 'provider_id', date: 'timestamp', list: 'meals', event: 'meal', raw: false },
  { slug: 'menstrual_cycle', key: 'period_start', date: 'period_start', list: 'menstrual_cycle', event: 'menstrual_cycle', raw: false },
  { slug: 'profile', key: null, date: null, list: 'profile', event: 'profile', raw: true },
  { slug: 'sleep', key: 'bedtime_start', date: 'calendar_date', list: 'sleep', event: 'sleep', raw: true },
  { slug: 'sleep_cycle', key: 'session_start', date: 'session_start', list: 'sleep_cycle', event: 'sleep_cycle', raw: false },
  { slug: 'workouts', key: 'provider_id', date: 'calendar_date', list: 'workouts', event: 'workouts', raw: true },
];

const TIMESERIES_BY_SLUG = new Map(TIMESERIES_RESOURCES.map((resource) => [resource.slug, resource]));
const SUMMARY_BY_SLUG = new Map(SUMMARY_TYPES.map((type) => [type.slug, type]));

export const timeseriesResource = (slug: string): TimeseriesResource | undefined => TIMESERIES_BY_SLUG.get(slug);
export const summaryType = (slug: string): SummaryType | undefined => SUMMARY_BY_SLUG.get(slug);

/** Cholesterol's legacy sub-routes (`/cholesterol/ldl`) read one sample type each. */
export const LEGACY_SUBTYPE_ROUTES: Readonly<Record<string, { resource: string; type: string }>> = {
  'cholesterol/total': { resource: 'cholesterol', type: 'total' },
  'cholesterol/ldl': { resource: 'cholesterol', type: 'ldl' },
  'cholesterol/hdl': { resource: 'cholesterol', type: 'hdl' },
  'cholesterol/triglycerides': { resource: 'cholesterol', type: 'triglycerides' },
};
