import { responseDto } from '../common/openapi';
import { z } from 'zod';

/**
 * What the health-data routes answer, documented in /openapi.json. A sample's or a summary's
 * fields depend on its resource (sample-schemas.ts, summary-schemas.ts): they are documented as
 * objects, their envelopes exactly.
 */

const record = z.record(z.string(), z.unknown());

export class IngestionResultResponse extends responseDto(
  z.object({
    resource: z.string(),
    stored: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    outside_ingestion_bounds: z.number().int(),
    events: z.number().int(),
  }),
) {}

/** `{<resource>: [summary, …]}` (e.g. `{sleep: […]}`), or a workout's stream: keyed by name. */
export class KeyedDataResponse extends responseDto(record) {}

/** The sleep's samples, keyed by timeseries resource (hrv, heartrate, hypnogram, respiratory_rate). */
export class SleepStreamResponse extends responseDto(z.record(z.string(), z.array(record))) {}

/** Samples of one resource, by time (the deprecated ungrouped read). */
export class SampleListResponse extends responseDto(z.array(record)) {}

/** `{groups: {<provider>: [{source, data}]}, next_cursor}` (served as pre-serialised JSON text). */
export class GroupedTimeseriesResponse extends responseDto(
  z.object({
    groups: z.record(z.string(), z.array(z.object({ source: record, data: z.array(record) }))),
    next_cursor: z.string().nullable(),
  }),
) {}

const device = z.object({
  id: z.string(),
  user_id: z.string(),
  provider: z.string(),
  source_type: z.string(),
  app_id: z.string().optional(),
  device_manufacturer: z.string().optional(),
  device_model: z.string().optional(),
  device_version: z.string().optional(),
  device_id: z.string().optional(),
});

export class DeviceResponse extends responseDto(device) {}

export class DeviceListResponse extends responseDto(z.array(device)) {}

const cursorPage = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), next_cursor: z.string().nullable() });

export class ResourcesIntrospectionResponse extends responseDto(cursorPage(z.object({ user_id: z.string(), provider: z.record(z.string(), record) }))) {}

export class HistoricalPullIntrospectionResponse extends responseDto(
  cursorPage(z.object({ user_id: z.string(), provider: z.record(z.string(), z.object({ pulled: record, not_pulled: z.array(z.string()) })) })),
) {}

export class ProviderListResponse extends responseDto(
  z.array(
    z.object({
      name: z.string(),
      slug: z.string(),
      description: z.string(),
      logo: z.string(),
      auth_type: z.enum(['', 'app', 'oauth', 'sdk', 'password', 'email']),
      supported_resources: z.array(z.string()).readonly(),
    }),
  ),
) {}

const table = z.object({ table: z.record(z.string(), z.array(z.unknown())) });

/** One result table per query of the batch: column name → values. */
export class AggregationResponse extends responseDto(z.object({ results: z.array(table) })) {}

export class ResultTableResponse extends responseDto(table) {}

export class TaskHistoryResponse extends responseDto(
  cursorPage(
    z.object({
      query_id: z.string(),
      user_id: z.string(),
      status: z.enum(['error', 'scheduled', 'started', 'completed']),
      scheduled_at: z.string(),
      started_at: z.string().nullable(),
      ended_at: z.string().nullable(),
      error_details: z.string().nullable(),
    }),
  ),
) {}
