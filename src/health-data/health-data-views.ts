import type { JsonText } from '../common/json-text';
import type { BatchItem } from '../events/event-batches';
import { isoString as iso } from './instants';
import { bySlug, providerOf, sourceIdOf, sourceOf } from './providers';
import type { TimeseriesResource } from './registry';
import type { StoredSummary } from './summaries.repository';
import type { NormalisedSample } from './sample-schemas';
import type { StoredSample } from './timeseries.repository';

/** Stored rows → the shapes Junction serves (and its SDK parses). */

/** One sample as `client.vitals.*` returns it. */
export function sampleView(resource: TimeseriesResource, sample: StoredSample): Record<string, unknown> {
  const view: Record<string, unknown> = {
    timezone_offset: sample.timezoneOffset,
    type: sample.sampleType,
    unit: resource.unit,
    timestamp: iso(sample.ts),
  };
  if (resource.kind === 'blood_pressure') {
    view.systolic = sample.value;
    view.diastolic = sample.diastolic;
    return view;
  }
  if (resource.kind === 'interval' || resource.kind === 'note') {
    view.start = iso(sample.ts);
    view.end = iso(sample.endTs ?? sample.ts);
  }
  if (resource.kind === 'note') {
    view.value = sample.extra?.value ?? '';
    view.tags = sample.extra?.tags ?? [];
  } else {
    view.value = sample.value;
    if (sample.extra) Object.assign(view, sample.extra);
  }
  return view;
}

/**
 * `JSON.stringify(sampleView(resource, sample))` of a sample as ingestion normalised it, written
 * directly for the usual sample (no extra fields): ingestion renders one per sample for its
 * event, thousands per request, and building the view objects first cost a tenth of the
 * request's CPU (their garbage more). Anything else goes through sampleView.
 */
export function sampleJson(resource: TimeseriesResource, sample: NormalisedSample): string {
  if (sample.extra !== null || resource.kind === 'note') return JSON.stringify(sampleView(resource, storedSampleOf(sample)));
  return plainSampleJson(resource, sample);
}

/** `JSON.stringify(sampleView(resource, sample))` of a stored sample, written as sampleJson writes it (a grouped read serves thousands). */
export function storedSampleJson(resource: TimeseriesResource, sample: StoredSample): string {
  if (sample.extra !== null || resource.kind === 'note') return JSON.stringify(sampleView(resource, sample));
  return plainSampleJson(resource, sample);
}

/** A sample without extra fields of a resource other than note, in sampleView's key order. */
function plainSampleJson(
  resource: TimeseriesResource,
  sample: Pick<StoredSample, 'ts' | 'endTs' | 'value' | 'diastolic' | 'sampleType' | 'timezoneOffset'>,
): string {
  const timestamp = iso(sample.ts);
  const head = jsonHead(resource, sample);
  if (resource.kind === 'blood_pressure') return `${head}${timestamp}","systolic":${number(sample.value)},"diastolic":${number(sample.diastolic)}}`;
  if (resource.kind === 'interval')
    return `${head}${timestamp}","start":"${timestamp}","end":"${iso(sample.endTs ?? sample.ts)}","value":${number(sample.value)}}`;
  return `${head}${timestamp}","value":${number(sample.value)}}`;
}

// The last head written: a batch's (or a read's) samples mostly share resource, offset and type.
let head = { resource: null as TimeseriesResource | null, offset: 0 as number | null, type: null as string | null, text: '' };

/** `{"timezone_offset":…,"type":…,"unit":…,"timestamp":"` of a sample's JSON. */
function jsonHead(resource: TimeseriesResource, sample: Pick<StoredSample, 'timezoneOffset' | 'sampleType'>): string {
  if (head.resource !== resource || head.offset !== sample.timezoneOffset || head.type !== sample.sampleType) {
    const text = `{"timezone_offset":${number(sample.timezoneOffset)},"type":${JSON.stringify(sample.sampleType)},"unit":${JSON.stringify(resource.unit)},"timestamp":"`;
    head = { resource, offset: sample.timezoneOffset, type: sample.sampleType, text };
  }
  return head.text;
}

/**
 * The sample's item in its event batch: `batchItem(`${sampleKey}|${ts}`, sampleJson(…))`,
 * written in one go (a request renders one per sample).
 */
export function sampleItem(resource: TimeseriesResource, sample: NormalisedSample): BatchItem {
  const json = sampleJson(resource, sample);
  return { entry: `[${keyHead(sample.sampleKey)}${sample.ts}",${json}]`, bytes: json.length + 1 };
}

let lastKey = { sampleKey: '', head: '"|' };

/** The JSON of `${sampleKey}|` without its closing quote. */
function keyHead(sampleKey: string): string {
  if (lastKey.sampleKey !== sampleKey) lastKey = { sampleKey, head: `${JSON.stringify(sampleKey).slice(0, -1)}|` };
  return lastKey.head;
}

/** A number as JSON writes it (null for a missing or non-finite one). */
const number = (value: number | null) => (value === null || !Number.isFinite(value) ? 'null' : String(value));

/**
 * The body of a grouped read, `{groups: {<provider>: [{source, data}]}, next_cursor}`, as JSON
 * text: a group per run of samples of one provider and source type (samples come ordered by
 * provider, source type, sample key, time), each sample as storedSampleJson writes it. Byte for
 * byte what JSON.stringify wrote of the view objects built before (providers in a JS object's
 * key order, integer-like slugs first), without building a view object per sample and then
 * walking them again to serialize: a day of 1,440 samples is ~190 KB.
 */
export function groupedSamplesJson(resource: TimeseriesResource, samples: StoredSample[], nextCursor: string | null): JsonText {
  const groups = bySlug<string[]>();
  for (let i = 0; i < samples.length;) {
    const { provider, sourceType } = samples[i];
    const data: string[] = [];
    for (; i < samples.length && samples[i].provider === provider && samples[i].sourceType === sourceType; i++)
      data.push(storedSampleJson(resource, samples[i]));
    (groups[provider] ??= []).push(`{"source":${JSON.stringify(sourceOf(provider, sourceType))},"data":[${data.join(',')}]}`);
  }
  const providers = Object.keys(groups).map((provider) => `${JSON.stringify(provider)}:[${groups[provider].join(',')}]`);
  return `{"groups":{${providers.join(',')}},"next_cursor":${JSON.stringify(nextCursor)}}` as JsonText;
}

/** A sample as ingestion normalised it, in the shape reads give stored ones. */
export function storedSampleOf(sample: NormalisedSample): StoredSample {
  return {
    provider: '',
    sourceType: '',
    sampleKey: sample.sampleKey,
    ts: sample.ts,
    endTs: sample.endTs,
    value: sample.value,
    diastolic: sample.diastolic,
    sampleType: sample.sampleType,
    timezoneOffset: sample.timezoneOffset,
    extra: sample.extra ? (JSON.parse(sample.extra) as Record<string, unknown>) : null,
  };
}

/** A summary as `client.<type>.get` returns it: the stored fields plus labflow's own. */
export function summaryView(summary: StoredSummary): Record<string, unknown> {
  const view: Record<string, unknown> = {
    ...summary.data,
    id: summary.id,
    user_id: summary.userId,
    source: sourceOf(summary.provider, summary.sourceType),
    created_at: summary.createdAt.toISOString(),
    updated_at: summary.updatedAt.toISOString(),
  };
  // `date` is the deprecated UTC midnight of calendar_date, still required by the SDK.
  if (typeof summary.data.calendar_date === 'string' && view.date === undefined) view.date = `${summary.data.calendar_date}T00:00:00+00:00`;
  if (['menstrual_cycle', 'electrocardiogram', 'sleep_cycle'].includes(summary.type)) {
    view.source_provider ??= summary.provider;
    view.source_type ??= summary.sourceType;
  }
  if (summary.type === 'meal' || summary.type === 'workouts') view.provider_id ??= summary.data.provider_id;
  if (summary.type === 'meal') {
    view.priority_id ??= 0;
    view.source_id ??= sourceIdOf(summary.provider);
  }
  return view;
}

/** A summary as the `/raw` reads return it (`ActivityV2InDb` and its kin). */
export function rawSummaryView(summary: StoredSummary): Record<string, unknown> {
  const timestamp = summary.day ? `${summary.day}T00:00:00+00:00` : summary.createdAt.toISOString();
  const view: Record<string, unknown> = {
    id: summary.id,
    user_id: summary.userId,
    provider_id: typeof summary.data.provider_id === 'string' ? summary.data.provider_id : summary.id,
    source_id: sourceIdOf(summary.provider),
    priority_id: 0,
    source: providerOf(summary.provider),
    data: summary.data,
    created_at: summary.createdAt.toISOString(),
    updated_at: summary.updatedAt.toISOString(),
  };
  if (summary.type !== 'devices' && summary.type !== 'profile') view.timestamp = timestamp;
  if (summary.type === 'workouts') {
    const sport = (summary.data.sport as { id: number; name: string; slug: string } | undefined) ?? { id: 0, name: 'Other', slug: 'other' };
    view.sport = sport;
    view.sport_id = sport.id;
  }
  return view;
}

/** The SDK's ClientFacingDeviceSourceType. */
const DEVICE_SOURCE_TYPES = new Set([
  'unknown',
  'phone',
  'watch',
  'app',
  'multiple_sources',
  'fingerprick',
  'cuff',
  'manual_scan',
  'automatic',
  'scale',
  'chest_strap',
  'ring',
  'lab',
  'exercise_machine',
  'earphone',
]);

/** Junction's ClientFacingDevice. */
export interface DeviceView {
  id: string;
  user_id: string;
  provider: string;
  source_type: string;
  app_id?: string;
  device_manufacturer?: string;
  device_model?: string;
  device_version?: string;
  device_id?: string;
}

/**
 * A device summary as a device: its source's kind (`unknown` when not one the SDK names), and
 * what the sender said of the device, under Junction's names or the common short ones.
 */
export function deviceView(summary: StoredSummary): DeviceView {
  const text = (...keys: string[]) => {
    for (const key of keys) {
      const value = summary.data[key];
      if (typeof value === 'string' && value !== '') return value;
    }
    return undefined;
  };
  const optional = {
    app_id: text('app_id'),
    device_manufacturer: text('device_manufacturer', 'manufacturer'),
    device_model: text('device_model', 'model'),
    device_version: text('device_version', 'hardware_version', 'firmware_version'),
    device_id: text('device_id', 'provider_id'),
  };
  return {
    id: summary.id,
    user_id: summary.userId,
    provider: summary.provider,
    source_type: DEVICE_SOURCE_TYPES.has(summary.sourceType) ? summary.sourceType : 'unknown',
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined)),
  };
}
