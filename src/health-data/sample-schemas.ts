import { z } from 'zod';
import { RequestValidationError, type ValidationIssue } from '../common/errors';
import { zodIssues } from '../common/validation';
import type { TimeseriesResource } from './registry';
// Offsets per zone and hour, remembered (a 50,000-sample batch asks Intl a few hundred times).
import { offsetMinutes, wallToUtc } from '../appointments/zoned-time';
import { utcInstantMs } from './instants';

/**
 * Timeseries samples as ingestion receives them, validated by a schema derived from the
 * resource's registry entry, and normalised for storage. A bad sample fails the whole request
 * with a 422 naming it (`loc: ["body", "data", <index>, <field>]`): nothing is written.
 */

/** ISO 8601 date-time, with or without an offset (without: local time in the batch's time zone). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const HAS_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;
/** Samples older than this or more than a day ahead are refused as mistakes (unit or epoch errors). */
const EARLIEST_MS = Date.UTC(1970, 0, 1);
const FUTURE_SLACK_MS = 86_400_000;

const instant = z.string().regex(DATE_TIME, { message: 'Must be an ISO 8601 date-time, e.g. 2026-11-23T08:00:00Z.' });
const finite = z.number().refine(Number.isFinite, { message: 'Must be a finite number.' });
const offset = z.number().int().min(-64_800).max(64_800).optional();

/** One sample, normalised: epoch milliseconds, and what the row stores beside them. */
export interface NormalisedSample {
  ts: number;
  endTs: number | null;
  value: number | null;
  diastolic: number | null;
  sampleType: string | null;
  timezoneOffset: number;
  extra: string | null;
  /** The part of the key the sample type contributes ('' unless the registry says so). */
  sampleKey: string;
}

const schemas = new Map<string, z.ZodType>();

/** The schema of one sample of `resource` (built once per resource). */
export function sampleSchema(resource: TimeseriesResource): z.ZodType {
  let schema = schemas.get(resource.slug);
  if (!schema) {
    schema = buildSchema(resource);
    schemas.set(resource.slug, schema);
  }
  return schema;
}

function buildSchema(resource: TimeseriesResource): z.ZodType {
  const typeSchema = resource.sampleType?.values ? z.enum(resource.sampleType.values as [string, ...string[]]) : z.string().min(1).max(64);
  const shape: Record<string, z.ZodType> = {
    timezone_offset: offset,
    unit: z.literal(resource.unit, { message: `Unit must be "${resource.unit}".` }).optional(),
    type: resource.sampleType?.required ? typeSchema : typeSchema.nullish(),
  };
  if (resource.kind === 'discrete' || resource.kind === 'blood_pressure') {
    shape.timestamp = instant;
  } else {
    shape.start = instant;
    shape.end = instant;
    shape.timestamp = instant.optional();
  }
  if (resource.kind === 'blood_pressure') {
    shape.systolic = finite;
    shape.diastolic = finite;
  } else if (resource.kind === 'note') {
    shape.value = z.string().max(10_000);
    shape.tags = z
      .array(z.enum(['food', 'exercise', 'insulin_injection', 'unspecified']))
      .max(16)
      .optional();
  } else {
    shape.value = finite;
  }
  if (resource.extra) shape[resource.extra.field] = z.enum(resource.extra.values as [string, ...string[]]).nullish();
  return z.object(shape);
}

/**
 * Validates and normalises every sample; throws one 422 listing the first bad samples (at most
 * 20 issues, so a million-sample mistake does not echo a million lines). `quickCheck` lets a
 * sample skip the schema (the unit tests pass one that never does, to compare the two paths).
 */
export function parseSamples(
  resource: TimeseriesResource,
  data: unknown[],
  timeZone: string,
  quickCheck: (resource: TimeseriesResource, item: unknown) => boolean = isPlainSample,
): NormalisedSample[] {
  const schema = sampleSchema(resource);
  const issues: ValidationIssue[] = [];
  const samples: NormalisedSample[] = new Array(data.length);
  const latest = Date.now() + FUTURE_SLACK_MS;
  for (let index = 0; index < data.length && issues.length < 20; index++) {
    const item = data[index];
    const loc = ['body', 'data', index];
    let sample: Record<string, unknown>;
    if (quickCheck(resource, item)) {
      sample = item as Record<string, unknown>;
    } else {
      const result = schema.safeParse(item);
      if (!result.success) {
        issues.push(...zodIssues(result.error, item, loc));
        continue;
      }
      sample = result.data as Record<string, unknown>;
    }
    const interval = resource.kind === 'interval' || resource.kind === 'note';
    const ts = toEpochMs(String(interval ? sample.start : sample.timestamp), timeZone);
    const endTs = interval ? toEpochMs(String(sample.end), timeZone) : null;
    const timeField = interval ? 'start' : 'timestamp';
    if (!Number.isFinite(ts) || ts < EARLIEST_MS || ts > latest) {
      issues.push({
        loc: [...loc, timeField],
        msg: 'Must be after 1970 and not more than a day in the future.',
        type: 'value_error',
        input: sample[timeField],
      });
      continue;
    }
    if (endTs !== null && !(endTs >= ts)) {
      issues.push({ loc: [...loc, 'end'], msg: 'end must not be before start.', type: 'value_error', input: sample.end });
      continue;
    }
    const type = (sample.type as string | null | undefined) ?? null;
    samples[index] = {
      ts,
      endTs,
      value: resource.kind === 'blood_pressure' ? (sample.systolic as number) : resource.kind === 'note' ? null : (sample.value as number),
      diastolic: resource.kind === 'blood_pressure' ? (sample.diastolic as number) : null,
      sampleType: type,
      timezoneOffset: (sample.timezone_offset as number | undefined) ?? offsetMinutes(ts, timeZone) * 60,
      extra: extraOf(resource, sample),
      sampleKey: resource.sampleType?.inKey && type ? type : '',
    };
  }
  if (issues.length > 0) throw new RequestValidationError(issues);
  return samples;
}

/**
 * The common case checked without zod (a 50,000-sample batch would otherwise spend most of its
 * time there): a discrete or interval sample with only `timestamp`|`start`/`end`, a finite
 * `value`, and optionally the right `unit` and an integer `timezone_offset`. Anything else —
 * including every invalid sample — goes through the schema, which decides and names the error;
 * this check accepts only what the schema accepts (test/unit/health-data-samples.test.ts checks it).
 */
export function isPlainSample(resource: TimeseriesResource, item: unknown): item is Record<string, unknown> {
  if (resource.kind !== 'discrete' && resource.kind !== 'interval') return false;
  if (resource.sampleType?.required || resource.extra) return false;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  const sample = item as Record<string, unknown>;
  if (typeof sample.value !== 'number' || !Number.isFinite(sample.value)) return false;
  if (sample.unit !== undefined && sample.unit !== resource.unit) return false;
  if (sample.type !== undefined && sample.type !== null) return false;
  const offset = sample.timezone_offset;
  if (offset !== undefined && !(Number.isInteger(offset) && Math.abs(offset as number) <= 64_800)) return false;
  if (resource.kind === 'discrete') return isDateTime(sample.timestamp);
  return isDateTime(sample.start) && isDateTime(sample.end) && (sample.timestamp === undefined || isDateTime(sample.timestamp));
}

/** Whether `value` is a date-time the schema accepts (DATE_TIME; the usual UTC form checked without the regex). */
function isDateTime(value: unknown): boolean {
  return typeof value === 'string' && (!Number.isNaN(utcInstantMs(value)) || DATE_TIME.test(value));
}

function extraOf(resource: TimeseriesResource, sample: Record<string, unknown>): string | null {
  if (resource.kind === 'note') return JSON.stringify({ value: sample.value, tags: sample.tags ?? [] });
  if (resource.extra && sample[resource.extra.field] != null) return JSON.stringify({ [resource.extra.field]: sample[resource.extra.field] });
  return null;
}

function toEpochMs(text: string, timeZone: string): number {
  const utc = utcInstantMs(text);
  if (!Number.isNaN(utc)) return utc;
  const iso = text.replace(' ', 'T');
  if (HAS_OFFSET.test(iso)) return Date.parse(iso);
  return wallToUtc(Date.parse(`${iso}Z`), timeZone);
}

/**
 * Keeps the last occurrence of each sample key in a batch: the latest value wins within a
 * request as it does across requests (and Postgres cannot update one row twice in a statement).
 */
export function lastPerKey(samples: NormalisedSample[]): NormalisedSample[] {
  // The usual batch: one series in time order, so no key repeats (no need to build the map).
  let ordered = true;
  for (let index = 1; index < samples.length && ordered; index++) {
    ordered = samples[index].ts > samples[index - 1].ts && samples[index].sampleKey === samples[0].sampleKey;
  }
  if (ordered) return samples;
  const seen = new Map<string, number>();
  for (let index = 0; index < samples.length; index++) seen.set(`${samples[index].sampleKey}|${samples[index].ts}`, index);
  if (seen.size === samples.length) return samples;
  return [...seen.values()].sort((a, b) => a - b).map((index) => samples[index]);
}
