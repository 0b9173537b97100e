import { z } from 'zod';
import { isoDate } from '../common/schemas';
import { timeseriesResource, type TimeseriesResource } from './registry';
import type { SummarySamples } from './sdk-nested-samples';
import { sdkQuantitySample, sdkSourceType, type SdkQuantitySample } from './sdk-sample-shapes';
import { compact, finiteNumber, hasField, optionalNumber, sdkDate, uuidOrUndefined } from './sdk-shape-parts';

/**
 * The mobile SDKs' meal, menstrual cycle and electrocardiogram payloads (vital-ios
 * `ManualMealCreation`, `LocalMenstrualCycle`, `ManualElectrocardiogram`; vital-android
 * `ManualMealCreation`, `LocalMenstrualCycle`) translated into Junction's `MealInDb…`,
 * `ClientFacingMenstrualCycle` and `ClientFacingElectrocardiogram` fields. docs/mobile.md maps
 * them field by field.
 */

/** A summary in labflow's shape, the source type it came from (the request's when none), and its timeseries. */
export interface TranslatedSummary {
  summary: Record<string, unknown>;
  sourceType?: string;
  samples?: SummarySamples[];
}

const text = z.string().max(255);

/**
 * Junction's meal fields: where each goes and its unit there (vital-node's Macros and Micros:
 * macros in g, minerals mg but sodium and potassium g, trace elements µg but copper and
 * manganese mg, vitamins mg but A, B12, D, K and biotin µg).
 */
const NUTRIENTS = {
  energy: ['energy', 'kcal'],
  carbs: ['macros', 'g'],
  protein: ['macros', 'g'],
  fibre: ['macros', 'g'],
  sugar: ['macros', 'g'],
  cholesterol: ['macros', 'g'],
  water: ['macros', 'g'],
  total: ['fats', 'g'],
  saturated: ['fats', 'g'],
  monounsaturated: ['fats', 'g'],
  polyunsaturated: ['fats', 'g'],
  vitamin_a: ['vitamins', 'µg'],
  vitamin_b1: ['vitamins', 'mg'],
  riboflavin: ['vitamins', 'mg'],
  niacin: ['vitamins', 'mg'],
  pantothenic_acid: ['vitamins', 'mg'],
  vitamin_b6: ['vitamins', 'mg'],
  biotin: ['vitamins', 'µg'],
  vitamin_b12: ['vitamins', 'µg'],
  vitamin_c: ['vitamins', 'mg'],
  vitamin_d: ['vitamins', 'µg'],
  vitamin_e: ['vitamins', 'mg'],
  vitamin_k: ['vitamins', 'µg'],
  folic_acid: ['vitamins', 'mg'],
  calcium: ['minerals', 'mg'],
  chloride: ['minerals', 'mg'],
  iron: ['minerals', 'mg'],
  magnesium: ['minerals', 'mg'],
  phosphorus: ['minerals', 'mg'],
  potassium: ['minerals', 'g'],
  sodium: ['minerals', 'g'],
  zinc: ['minerals', 'mg'],
  chromium: ['trace_elements', 'µg'],
  copper: ['trace_elements', 'mg'],
  iodine: ['trace_elements', 'µg'],
  manganese: ['trace_elements', 'mg'],
  molybdenum: ['trace_elements', 'µg'],
  selenium: ['trace_elements', 'µg'],
} as const satisfies Record<string, readonly [string, string]>;
type Nutrient = keyof typeof NUTRIENTS;

/** vital-ios `HealthKitNutritionRawData` lists and the nutrient each is (caffeine comes as its own timeseries too). */
const IOS_NUTRIENTS: Readonly<Record<string, Nutrient>> = {
  energy_total: 'energy',
  carbohydrates: 'carbs',
  fiber: 'fibre',
  sugar: 'sugar',
  fat_total: 'total',
  fat_monounsaturated: 'monounsaturated',
  fat_polyunsaturated: 'polyunsaturated',
  fat_saturated: 'saturated',
  cholesterol: 'cholesterol',
  protein: 'protein',
  water: 'water',
  ...Object.fromEntries(
    [
      'vitamin_a',
      'vitamin_b1',
      'riboflavin',
      'niacin',
      'pantothenic_acid',
      'vitamin_b6',
      'biotin',
      'vitamin_b12',
      'vitamin_c',
      'vitamin_d',
      'vitamin_e',
      'vitamin_k',
      'folic_acid',
    ]
      .concat(['calcium', 'chloride', 'iron', 'magnesium', 'phosphorus', 'potassium', 'sodium', 'zinc'])
      .concat(['chromium', 'copper', 'iodine', 'manganese', 'molybdenum', 'selenium'])
      .map((name) => [name, name as Nutrient]),
  ),
};

/** vital-android `NutritionRecord` fields, the nutrient each is and the unit Health Connect's reader writes it in. */
const ANDROID_NUTRIENTS: Readonly<Record<string, readonly [Nutrient, string]>> = {
  energy: ['energy', 'kcal'],
  total_carbohydrate: ['carbs', 'g'],
  protein: ['protein', 'g'],
  dietary_fiber: ['fibre', 'g'],
  sugar: ['sugar', 'g'],
  cholesterol: ['cholesterol', 'mg'],
  total_fat: ['total', 'g'],
  saturated_fat: ['saturated', 'g'],
  monounsaturated_fat: ['monounsaturated', 'g'],
  polyunsaturated_fat: ['polyunsaturated', 'g'],
  vitamin_a: ['vitamin_a', 'µg'],
  thiamin: ['vitamin_b1', 'mg'],
  riboflavin: ['riboflavin', 'mg'],
  niacin: ['niacin', 'mg'],
  pantothenic_acid: ['pantothenic_acid', 'mg'],
  vitamin_b6: ['vitamin_b6', 'mg'],
  biotin: ['biotin', 'µg'],
  vitamin_b12: ['vitamin_b12', 'µg'],
  vitamin_c: ['vitamin_c', 'mg'],
  vitamin_d: ['vitamin_d', 'µg'],
  vitamin_e: ['vitamin_e', 'mg'],
  vitamin_k: ['vitamin_k', 'µg'],
  folic_acid: ['folic_acid', 'µg'],
  calcium: ['calcium', 'mg'],
  chloride: ['chloride', 'mg'],
  iron: ['iron', 'mg'],
  magnesium: ['magnesium', 'mg'],
  phosphorus: ['phosphorus', 'mg'],
  potassium: ['potassium', 'mg'],
  sodium: ['sodium', 'mg'],
  zinc: ['zinc', 'mg'],
  chromium: ['chromium', 'µg'],
  copper: ['copper', 'mg'],
  iodine: ['iodine', 'µg'],
  manganese: ['manganese', 'mg'],
  molybdenum: ['molybdenum', 'µg'],
  selenium: ['selenium', 'µg'],
};

/** Mass units as the SDKs spell them, in grams (water's mL counted as g). */
const GRAMS: Readonly<Record<string, number>> = { g: 1, gram: 1, mg: 1e-3, '\u00B5g': 1e-6, '\u03BCg': 1e-6, ug: 1e-6, mL: 1, ml: 1 };

/** A value in the nutrient's unit, or undefined when the unit cannot be converted. */
function inUnit(nutrient: Nutrient, value: number, unit: string): number | undefined {
  const target = NUTRIENTS[nutrient][1];
  if (target === 'kcal') return unit === 'kcal' ? value : unit === 'kJ' ? value / 4.184 : undefined;
  const from = GRAMS[unit];
  // Rounded to what the unit conversion can mean (1e-12 g), not to float noise.
  return from === undefined ? undefined : Number(((value * from) / GRAMS[target === 'µg' ? '\u00B5g' : target]).toPrecision(12));
}

const knownUnit = (nutrient: Nutrient) => (sample: SdkQuantitySample) => inUnit(nutrient, 1, sample.unit) !== undefined;

const iosMeal = z.object({
  healthkit: z.looseObject({
    source_bundle: text,
    ...Object.fromEntries(
      Object.entries(IOS_NUTRIENTS).map(([field, nutrient]) => [
        field,
        z.array(sdkQuantitySample.refine(knownUnit(nutrient), { message: `Unit must be one of ${unitsOf(nutrient)}.`, path: ['unit'] })).nullish(),
      ]),
    ),
  }),
});

function unitsOf(nutrient: Nutrient): string {
  return NUTRIENTS[nutrient][1] === 'kcal' ? 'kcal, kJ' : 'g, gram, mg, µg';
}

const androidRecord = z.looseObject({
  start_time: sdkDate,
  end_time: sdkDate,
  name: z.string().max(1000).nullish(),
  meal_type: z.number().int().nullish(),
  ...Object.fromEntries(Object.keys(ANDROID_NUTRIENTS).map((field) => [field, optionalNumber])),
});
const androidMeal = z.object({ health_connect: z.object({ source_bundle: z.string().max(255), nutrition_records: z.array(androidRecord).max(10_000) }) });

/** Health Connect's `MealType` ints. */
const MEAL_TYPES: Readonly<Record<number, string>> = { 1: 'Breakfast', 2: 'Lunch', 3: 'Dinner', 4: 'Snack' };

type Amounts = Partial<Record<Nutrient, number>>;

/** Junction's meal fields from nutrient amounts: `energy {unit, value}`, `macros {…, fats}`, `micros {minerals, trace_elements, vitamins}`. */
function mealFields(amounts: Amounts): Record<string, unknown> {
  const parts: Record<string, Record<string, number>> = {};
  for (const [nutrient, value] of Object.entries(amounts) as Array<[Nutrient, number]>) (parts[NUTRIENTS[nutrient][0]] ??= {})[nutrient] = value;
  const out: Record<string, unknown> = {};
  if (parts.energy) out.energy = { unit: 'kcal', value: parts.energy.energy };
  if (parts.macros || parts.fats) out.macros = { ...parts.macros, ...(parts.fats ? { fats: parts.fats } : {}) };
  const micros = Object.fromEntries(['minerals', 'trace_elements', 'vitamins'].filter((key) => parts[key]).map((key) => [key, parts[key]]));
  if (Object.keys(micros).length > 0) out.micros = micros;
  return out;
}

/** iOS: one meal per instant its food was logged at (HealthKit writes a food's nutrients at one time), per source app. */
function iosMeals(meal: z.output<typeof iosMeal>): TranslatedSummary[] {
  const bundle = meal.healthkit.source_bundle;
  const byInstant = new Map<number, { amounts: Amounts; name?: string }>();
  for (const [field, nutrient] of Object.entries(IOS_NUTRIENTS)) {
    for (const sample of (meal.healthkit[field] as SdkQuantitySample[] | null | undefined) ?? []) {
      const at = Date.parse(sample.start_date);
      const entry = byInstant.get(at) ?? { amounts: {} };
      byInstant.set(at, entry);
      entry.amounts[nutrient] = (entry.amounts[nutrient] ?? 0) + (inUnit(nutrient, sample.value, sample.unit) as number);
      entry.name ??= sample.metadata?.HKFoodType;
    }
  }
  const sourceType = sdkSourceType({ source_bundle: bundle });
  return [...byInstant].map(([at, entry]) => {
    const timestamp = new Date(at).toISOString();
    const summary = { provider_id: `${bundle}|${timestamp}`, timestamp, name: entry.name ?? 'Meal', source_app_id: bundle, ...mealFields(entry.amounts) };
    return { summary, sourceType };
  });
}

/** Android: one meal per nutrition record. */
function androidMeals(meal: z.output<typeof androidMeal>): TranslatedSummary[] {
  const bundle = meal.health_connect.source_bundle;
  return meal.health_connect.nutrition_records.map((record) => {
    const amounts: Amounts = {};
    for (const [field, [nutrient, unit]] of Object.entries(ANDROID_NUTRIENTS)) {
      const value = record[field] as number | null | undefined;
      if (typeof value === 'number') amounts[nutrient] = inUnit(nutrient, value, unit) as number;
    }
    const timestamp = new Date(Date.parse(record.start_time)).toISOString();
    const name = record.name || MEAL_TYPES[record.meal_type ?? 0] || 'Meal';
    const summary = {
      provider_id: `${bundle}|${timestamp}|${record.meal_type ?? 0}`,
      timestamp,
      name,
      source_app_id: bundle || undefined,
      ...mealFields(amounts),
    };
    return { summary: compact(summary), sourceType: sdkSourceType({ source_bundle: bundle }) };
  });
}

const dated = <T extends z.ZodRawShape>(shape: T) =>
  z
    .array(z.object({ date: isoDate, ...shape }))
    .max(1000)
    .nullish();
const sdkCycle = z.object({
  source_bundle: text.nullish(),
  cycle: z.object({
    period_start: isoDate,
    period_end: isoDate.nullish(),
    cycle_end: isoDate.nullish(),
    menstrual_flow: dated({ flow: z.enum(['unspecified', 'none', 'light', 'medium', 'heavy']) }),
    cervical_mucus: dated({ quality: z.enum(['dry', 'sticky', 'creamy', 'watery', 'egg_white']) }),
    intermenstrual_bleeding: dated({}),
    contraceptive: dated({ type: z.enum(['unspecified', 'implant', 'injection', 'iud', 'intravaginal_ring', 'oral', 'patch']) }),
    detected_deviations: dated({
      deviation: z.enum(['persistent_intermenstrual_bleeding', 'prolonged_menstrual_periods', 'irregular_menstrual_cycles', 'infrequent_menstrual_cycles']),
    }),
    ovulation_test: dated({ test_result: z.enum(['negative', 'positive', 'luteinizing_hormone_surge', 'estrogen_surge', 'indeterminate']) }),
    home_pregnancy_test: dated({ test_result: z.enum(['negative', 'positive', 'indeterminate']) }),
    home_progesterone_test: dated({ test_result: z.enum(['negative', 'positive', 'indeterminate']) }),
    sexual_activity: dated({ protection_used: z.boolean().nullish() }),
    basal_body_temperature: dated({ value: finiteNumber }),
    source: z.looseObject({ provider: text, type: text, app_id: text.nullish() }),
  }),
});

const CYCLE_LISTS = [
  'menstrual_flow',
  'cervical_mucus',
  'intermenstrual_bleeding',
  'contraceptive',
  'detected_deviations',
  'ovulation_test',
  'home_pregnancy_test',
  'home_progesterone_test',
  'sexual_activity',
  'basal_body_temperature',
] as const;

function cycleOf(item: z.output<typeof sdkCycle>): TranslatedSummary {
  const { cycle } = item;
  const summary: Record<string, unknown> = {
    period_start: cycle.period_start,
    period_end: cycle.period_end,
    cycle_end: cycle.cycle_end,
    source_app_id: cycle.source.app_id ?? item.source_bundle,
  };
  for (const list of CYCLE_LISTS) summary[list] = cycle[list] ?? [];
  return { summary: compact(summary), sourceType: cycle.source.type };
}

const sdkEcg = z.object({
  electrocardiogram: z.looseObject({
    id: text,
    session_start: sdkDate,
    session_end: sdkDate,
    voltage_sample_count: z.number().int().min(0),
    heart_rate_mean: optionalNumber,
    sampling_frequency_hz: optionalNumber,
    classification: z.enum(['sinus_rhythm', 'atrial_fibrillation', 'inconclusive']).nullish(),
    inconclusive_cause: z.enum(['high_heart_rate', 'low_heart_rate', 'poor_reading']).nullish(),
    algorithm_version: text.nullish(),
    source_bundle: text,
    product_type: text.nullish(),
    device_model: text.nullish(),
  }),
  voltage_data: z
    .object({
      session_start_offset_millisecond: z.array(z.number().int().min(0)).max(100_000),
      lead1: z.array(finiteNumber.nullable()).max(100_000),
    })
    .refine((voltage) => voltage.lead1.length === voltage.session_start_offset_millisecond.length, {
      message: 'lead1 must have one value per session_start_offset_millisecond.',
      path: ['lead1'],
    }),
});

/** An ECG and its voltage, `electrocardiogram_voltage` samples of type `lead_1` in mV at the session start plus each offset. */
function ecgOf(item: z.output<typeof sdkEcg>, loc: Array<string | number>): TranslatedSummary {
  const ecg = item.electrocardiogram;
  const summary = compact({
    id: uuidOrUndefined(ecg.id),
    session_start: ecg.session_start,
    session_end: ecg.session_end,
    voltage_sample_count: ecg.voltage_sample_count,
    heart_rate_mean: ecg.heart_rate_mean,
    sampling_frequency_hz: ecg.sampling_frequency_hz,
    classification: ecg.classification,
    inconclusive_cause: ecg.inconclusive_cause,
    algorithm_version: ecg.algorithm_version,
    source_app_id: ecg.source_bundle,
    source_device_model: ecg.device_model ?? ecg.product_type,
  });
  const resource = timeseriesResource('electrocardiogram_voltage') as TimeseriesResource;
  const start = Date.parse(ecg.session_start);
  const voltage: SummarySamples = { resource, samples: [], locs: [] };
  item.voltage_data.lead1.forEach((value, index) => {
    if (value === null) return;
    const offset = item.voltage_data.session_start_offset_millisecond[index];
    voltage.samples.push({ timestamp: new Date(start + offset).toISOString(), value, unit: 'mV', type: 'lead_1' });
    voltage.locs.push([...loc, 'voltage_data', 'lead1', index]);
  });
  return { summary, sourceType: sdkSourceType(ecg), samples: voltage.samples.length > 0 ? [voltage] : [] };
}

/** Whether a meal, cycle or ECG item is in an SDK's shape. */
export function isSdkRecord(type: string, item: unknown): boolean {
  if (type === 'meal') return hasField(item, 'healthkit') || hasField(item, 'health_connect');
  if (type === 'menstrual_cycle') return hasField(item, 'cycle') && !hasField(item, 'period_start');
  if (type === 'electrocardiogram') return hasField(item, 'electrocardiogram') && hasField(item, 'voltage_data');
  return false;
}

/** The summaries of an SDK-shaped meal, cycle or ECG item, or why it does not parse. */
export function translateRecord(type: string, item: unknown, loc: Array<string | number>): TranslatedSummary[] | z.ZodError {
  if (type === 'meal') {
    const parsed = hasField(item, 'healthkit') ? iosMeal.safeParse(item) : androidMeal.safeParse(item);
    if (!parsed.success) return parsed.error;
    return 'healthkit' in parsed.data ? iosMeals(parsed.data) : androidMeals(parsed.data);
  }
  const parsed = type === 'menstrual_cycle' ? sdkCycle.safeParse(item) : sdkEcg.safeParse(item);
  if (!parsed.success) return parsed.error;
  return type === 'menstrual_cycle' ? [cycleOf(parsed.data as z.output<typeof sdkCycle>)] : [ecgOf(parsed.data as z.output<typeof sdkEcg>, loc)];
}
