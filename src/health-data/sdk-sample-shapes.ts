import { z } from 'zod';
import { RequestValidationError, type ValidationIssue } from '../common/errors';
import { zodIssues } from '../common/validation';
import { slug } from './health-data.dto';
import type { TimeseriesResource } from './registry';

/**
 * The mobile SDKs' own sample shapes, as their sources encode them, translated into labflow's
 * (`{timestamp | start, end, value, unit, type}`) before validation. The iOS SDK (vital-ios,
 * `LocalQuantitySample`, `LocalBloodPressureSample`) encodes with Swift's JSONEncoder
 * (`.convertToSnakeCase`, dates `.iso8601`: whole seconds, `Z`, nil optionals left out); the
 * Android SDK (vital-android, Moshi) the same fields with its own unit spellings and an `id`.
 *
 * - `{value, start_date, end_date, unit, source_bundle?, product_type?, type?, metadata?, id?}`:
 *   a discrete resource takes `start_date` as its timestamp, an interval one both dates;
 * - `type` is the SDK's source type (`watch`, `phone`, ...), not labflow's sample type: with
 *   none (or `unknown`) it is inferred from `source_bundle` and `product_type` as the SDK does,
 *   and the sample is kept under that source type (part of its key);
 * - the sample types the SDK puts in `metadata` (`type` of a heart-rate alert, `category` of a
 *   sleep breathing disturbance) or in the value (an Apple stand hour: 0 stood, 1 idle) become `type`;
 * - units in the SDKs' spelling are converted to the resource's (`meter` → `m`, caffeine `mg` →
 *   `g`, Android `kJ` → `kcal`, `mg/dL` → `mmol/L`); another unit stays as sent, so the
 *   resource's schema refuses it naming the unit it wants;
 * - `metadata`, `source_bundle`, `product_type` and `id` are not stored.
 *
 * A sample in labflow's shape passes through unchanged, in the batch's `source_type`.
 */

/** Upload paths the SDKs use for a resource labflow names otherwise. */
export const SDK_RESOURCE_ALIASES: Readonly<Record<string, string>> = {
  heartrate_variability: 'hrv',
  temperature: 'body_temperature',
};

/** A unit as the SDKs spell it: labflow's unit and the factor from one to the other. */
const UNIT_ALIASES: Readonly<Record<string, readonly [string, number]>> = {
  meter: ['m', 1],
  centimeter: ['cm', 1],
  minute: ['min', 1],
  gram: ['g', 1],
  mg: ['g', 0.001],
  '\u03BCg': ['g', 0.000_001],
  percent: ['%', 1],
  ml: ['mL', 1],
  kJ: ['kcal', 1 / 4.184],
  'mg/dL': ['mmol/L', 1 / 18.0182],
};

/** ISO 8601 with an offset, fractional seconds optional (iOS writes none). */
const sdkDate = z.iso.datetime({ offset: true });
const finite = z.number().refine(Number.isFinite, { message: 'Must be a finite number.' });

export const sdkQuantitySample = z.object({
  id: z.string().max(255).nullish(),
  value: finite,
  start_date: sdkDate,
  end_date: sdkDate,
  unit: z.string().max(32),
  source_bundle: z.string().max(255).nullish(),
  product_type: z.string().max(255).nullish(),
  type: slug.nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});
export type SdkQuantitySample = z.output<typeof sdkQuantitySample>;

/** zod's own pattern for `sdkDate`, so the check below accepts exactly the dates the schema does. */
const SDK_DATE = z.regexes.datetime({ offset: true });
const SLUG = /^[a-z0-9_]{1,64}$/;
const optionalText = (value: unknown, max: number) => value === undefined || value === null || (typeof value === 'string' && value.length <= max);

/**
 * The usual LocalQuantitySample checked without zod, by the schema's own rules (a chunk's 10,000
 * would otherwise spend most of their translation there); anything else goes through the schema,
 * which names what is wrong. test/unit/sdk-sample-shapes.test.ts holds the two to the same answers.
 */
export function isPlainSdkSample(item: unknown): item is SdkQuantitySample {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  const sample = item as Record<string, unknown>;
  if (typeof sample.value !== 'number' || !Number.isFinite(sample.value)) return false;
  if (typeof sample.start_date !== 'string' || !SDK_DATE.test(sample.start_date)) return false;
  if (typeof sample.end_date !== 'string' || (sample.end_date !== sample.start_date && !SDK_DATE.test(sample.end_date))) return false;
  if (typeof sample.unit !== 'string' || sample.unit.length > 32) return false;
  if (!optionalText(sample.id, 255) || !optionalText(sample.source_bundle, 255) || !optionalText(sample.product_type, 255)) return false;
  if (sample.type !== undefined && sample.type !== null && !(typeof sample.type === 'string' && SLUG.test(sample.type))) return false;
  const metadata = sample.metadata;
  if (metadata === undefined || metadata === null) return true;
  if (typeof metadata !== 'object' || Array.isArray(metadata) || Object.getPrototypeOf(metadata) !== Object.prototype) return false;
  for (const key in metadata) if (typeof (metadata as Record<string, unknown>)[key] !== 'string') return false;
  return true;
}

const sdkBloodPressure = z.object({ systolic: sdkQuantitySample, diastolic: sdkQuantitySample, pulse: sdkQuantitySample.nullish() });

/** Whether an item is in an SDK's shape rather than labflow's. */
export function isSdkQuantity(item: unknown): boolean {
  return typeof item === 'object' && item !== null && 'start_date' in item && !('timestamp' in item) && !('start' in item);
}

function isSdkBloodPressure(item: unknown): boolean {
  return typeof item === 'object' && item !== null && typeof (item as { systolic?: unknown }).systolic === 'object';
}

/** The SDK's source type of a sample: its own `type`, else inferred as `SourceType.infer` does. */
export function sdkSourceType(sample: Pick<SdkQuantitySample, 'type' | 'source_bundle' | 'product_type'>): string {
  if (sample.type && sample.type !== 'unknown') return sample.type;
  const bundle = sample.source_bundle;
  if (!bundle) return 'unknown';
  if (bundle === 'com.apple.Health') return 'app';
  if (bundle.startsWith('com.apple.health.')) {
    const product = (sample.product_type ?? '').toLowerCase();
    if (product.startsWith('watch')) return 'watch';
    if (product.startsWith('iphone')) return 'phone';
  }
  return 'unknown';
}

/** A value and unit in the resource's unit where the SDKs spell or scale it otherwise. */
export function sdkValueInUnit(resource: Pick<TimeseriesResource, 'unit'>, value: number, unit: string): { value: number; unit: string } {
  if (unit === resource.unit) return { value, unit };
  const alias = UNIT_ALIASES[unit];
  if (alias && alias[0] === resource.unit) return { value: value * alias[1], unit: alias[0] };
  // HealthKit counts the UV index; Android leaves counts without a unit.
  if ((unit === 'count' && resource.unit === 'index') || (unit === '' && resource.unit === 'count')) return { value, unit: resource.unit };
  return { value, unit };
}

function sampleTypeOf(resource: TimeseriesResource, sample: SdkQuantitySample): string | undefined {
  if (!resource.sampleType) return undefined;
  if (resource.slug === 'stand_hour') return sample.value === 0 ? 'stood' : 'idle';
  return sample.metadata?.type ?? sample.metadata?.category ?? undefined;
}

/** An SDK sample in labflow's shape for the resource (its unit, sample type and time fields). */
export function labflowSample(resource: TimeseriesResource, sample: SdkQuantitySample): Record<string, unknown> {
  const { value, unit } = sdkValueInUnit(resource, sample.value, sample.unit);
  const type = sampleTypeOf(resource, sample);
  const out: Record<string, unknown> = { value: resource.slug === 'stand_hour' ? (type === 'stood' ? 1 : 0) : value, unit };
  if (type !== undefined) out.type = type;
  if (resource.kind === 'discrete' || resource.kind === 'blood_pressure') out.timestamp = sample.start_date;
  else Object.assign(out, { start: sample.start_date, end: sample.end_date });
  return out;
}

/** A batch in labflow's sample shape, and the source type each sample is kept under. */
export interface TranslatedSamples {
  data: unknown[];
  sourceTypes: string[];
}

/**
 * Translates the batch's SDK-shaped samples (labflow-shaped ones stay as sent, each keeping its
 * index, so a 422 names the sample where it was). An SDK sample that does not parse fails the
 * request with the SDK's field names (`loc: ["body", "data", i, "start_date"]`).
 */
export function fromSdkSamples(resource: TimeseriesResource, data: unknown[], batchSourceType: string): TranslatedSamples {
  const out: unknown[] = new Array(data.length);
  const sourceTypes: string[] = new Array(data.length);
  const issues: ValidationIssue[] = [];
  for (let index = 0; index < data.length && issues.length < 20; index++) {
    const item = data[index];
    out[index] = item;
    sourceTypes[index] = batchSourceType;
    if (resource.kind === 'blood_pressure' && isSdkBloodPressure(item)) {
      const parsed = sdkBloodPressure.safeParse(item);
      if (!parsed.success) {
        issues.push(...zodIssues(parsed.error, item, ['body', 'data', index]));
        continue;
      }
      const { systolic, diastolic } = parsed.data;
      out[index] = { timestamp: systolic.start_date, systolic: systolic.value, diastolic: diastolic.value, unit: systolic.unit };
      sourceTypes[index] = sdkSourceType(systolic);
    } else if (isSdkQuantity(item) && isPlainSdkSample(item)) {
      out[index] = labflowSample(resource, item);
      sourceTypes[index] = sdkSourceType(item);
    } else if (isSdkQuantity(item)) {
      const parsed = sdkQuantitySample.safeParse(item);
      if (!parsed.success) {
        issues.push(...zodIssues(parsed.error, item, ['body', 'data', index]));
        continue;
      }
      out[index] = labflowSample(resource, parsed.data);
      sourceTypes[index] = sdkSourceType(parsed.data);
    }
  }
  if (issues.length > 0) throw new RequestValidationError(issues);
  return { data: out, sourceTypes };
}
