import { z } from 'zod';
import { RequestValidationError, type ValidationIssue } from '../common/errors';
import { timeseriesResource, type TimeseriesResource } from './registry';
import { parseSamples, type NormalisedSample } from './sample-schemas';
import { labflowSample, type SdkQuantitySample } from './sdk-sample-shapes';
import { finiteNumber } from './sdk-shape-parts';

/**
 * Samples the SDKs send inside a summary (an iOS sleep's heart rate, a workout's heart rate and
 * stream, an electrocardiogram's voltage), to be stored as the timeseries they are, under the
 * summary's source. Each keeps where it was in the request, so a 422 names the SDK's field.
 */
export interface NestedSamples {
  /** The summary (index in the translated list) they came with. */
  item: number;
  resource: TimeseriesResource;
  /** In labflow's sample shape. */
  samples: Array<Record<string, unknown>>;
  /** Each sample's place in the request (`["body", "data", 0, "heart_rate", 3]`). */
  locs: Array<Array<string | number>>;
}

/** Samples of one summary, before the summary's place in the list is known. */
export type SummarySamples = Omit<NestedSamples, 'item'>;

type Loc = Array<string | number>;

/** The summary fields whose samples are timeseries, and the resource each is stored as. */
export const SLEEP_SAMPLE_FIELDS: Readonly<Record<string, string>> = {
  heart_rate: 'heartrate',
  heart_rate_variability: 'hrv',
  respiratory_rate: 'respiratory_rate',
  wrist_temperature: 'body_temperature',
};
export const WORKOUT_SAMPLE_FIELDS: Readonly<Record<string, string>> = { heart_rate: 'heartrate', respiratory_rate: 'respiratory_rate' };

/** iOS `ManualWorkoutStream` components and the resource each is stored as. */
const STREAM_COMPONENTS: Readonly<Record<string, string>> = {
  distance_cycling: 'workout_distance',
  distance_walking_running: 'workout_distance',
  distance_rowing: 'workout_distance',
  distance_wheelchair: 'workout_distance',
  distance_downhill_snow_sports: 'workout_distance',
  distance_swimming: 'workout_distance',
  distance_paddle_sports: 'workout_distance',
  distance_skating_sports: 'workout_distance',
  distance_cross_country_skiing: 'workout_distance',
  swimming_stroke_count: 'workout_swimming_stroke',
};

/** vital-ios `BulkQuantitySample`: values with offsets in seconds from `anchor`. */
const bulkSample = z
  .looseObject({
    anchor: z.iso.datetime({ offset: true }),
    value: z.array(finiteNumber).max(100_000),
    start_offset: z.array(finiteNumber).max(100_000),
    end_offset: z.array(finiteNumber).max(100_000),
  })
  .refine((bulk) => bulk.start_offset.length === bulk.value.length && bulk.end_offset.length === bulk.value.length, {
    message: 'value, start_offset and end_offset must have the same length.',
    path: ['value'],
  });
export const sdkWorkoutStream = z.object({
  components: z.partialRecord(z.enum(Object.keys(STREAM_COMPONENTS) as [string, ...string[]]), z.array(bulkSample).max(10_000)),
});

/** The sample lists of a summary's fields, as timeseries of their resources. */
export function fieldSamples(fields: Readonly<Record<string, string>>, value: Record<string, unknown>, loc: Loc): SummarySamples[] {
  const out: SummarySamples[] = [];
  for (const [field, slug] of Object.entries(fields)) {
    const list = value[field] as SdkQuantitySample[] | null | undefined;
    if (!list || list.length === 0) continue;
    const resource = timeseriesResource(slug) as TimeseriesResource;
    out.push({
      resource,
      samples: list.map((sample) => {
        const translated = labflowSample(resource, sample);
        // Apple's sleeping wrist temperature.
        if (slug === 'body_temperature') translated.sensor_location = 'wrist';
        return translated;
      }),
      locs: list.map((_, index) => [...loc, field, index]),
    });
  }
  return out;
}

/** A workout stream's components as interval samples (distance in metres, strokes counted). */
export function streamSamples(stream: z.output<typeof sdkWorkoutStream>, loc: Loc): SummarySamples[] {
  const bySlug = new Map<string, SummarySamples>();
  for (const [component, bulks] of Object.entries(stream.components)) {
    const slug = STREAM_COMPONENTS[component];
    const resource = timeseriesResource(slug) as TimeseriesResource;
    const nested = bySlug.get(slug) ?? { resource, samples: [], locs: [] };
    bySlug.set(slug, nested);
    (bulks ?? []).forEach((bulk, b) => {
      const anchor = Date.parse(bulk.anchor);
      bulk.value.forEach((value, i) => {
        nested.samples.push({
          start: new Date(anchor + bulk.start_offset[i] * 1000).toISOString(),
          end: new Date(anchor + bulk.end_offset[i] * 1000).toISOString(),
          value,
          unit: resource.unit,
        });
        nested.locs.push([...loc, 'stream', 'components', component, b, 'value', i]);
      });
    });
  }
  return [...bySlug.values()].filter((nested) => nested.samples.length > 0);
}

/** labflow's sample fields and the SDK's they came from, for a 422's loc. */
const SDK_FIELD: Readonly<Record<string, string>> = { timestamp: 'start_date', start: 'start_date', end: 'end_date' };

/**
 * Validates the nested samples as their resources' (the same rules as an upload of them), a
 * 422 naming the SDK's place of each bad one; answers them normalised, per item and resource.
 */
export function parseNestedSamples(nested: NestedSamples[], timeZone: string): Array<NestedSamples & { parsed: NormalisedSample[] }> {
  const issues: ValidationIssue[] = [];
  const out: Array<NestedSamples & { parsed: NormalisedSample[] }> = [];
  for (const group of nested) {
    try {
      out.push({ ...group, parsed: parseSamples(group.resource, group.samples, timeZone) });
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      for (const issue of error.issues) {
        const [, , index, field, ...rest] = issue.loc;
        const place = group.locs[index as number] ?? ['body', 'data', group.item];
        const sdkField = typeof field === 'string' ? (SDK_FIELD[field] ?? field) : field;
        // A stream's sample is its value's place; its times are offsets.
        const named = place.includes('stream') ? place : sdkField === undefined ? place : [...place, sdkField, ...rest];
        issues.push({ ...issue, loc: named });
      }
    }
    if (issues.length >= 20) break;
  }
  if (issues.length > 0) throw new RequestValidationError(issues.slice(0, 20));
  return out;
}
