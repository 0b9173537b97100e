import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { ianaTimeZone, isoDate } from '../common/schemas';
import { PROVIDER_SOURCE_TYPES } from './providers';

/**
 * Request schemas of the health-data routes. The per-resource sample schemas are built from the
 * registry in sample-schemas.ts; here are the envelopes and the read queries (Junction's names).
 */

/** A provider or source-type slug as Junction spells them (`apple_health_kit`, `watch`). */
export const slug = z.string().regex(/^[a-z0-9_]{1,64}$/, { message: 'Must be a lowercase slug (a-z, 0-9, _).' });

/** Largest number of samples or summaries one ingestion request may carry. */
export const MAX_ITEMS_PER_REQUEST = 100_000;

/** A backfill's first or last day: a day, or a date-time as the iOS SDK writes its Dates (`2026-11-20T00:00:00Z`), kept as its UTC day. */
const backfillDay = z.union([isoDate, z.iso.datetime({ offset: true }).transform((value) => new Date(value).toISOString().slice(0, 10))]);

/** `POST /v2/timeseries/{user_id}/{resource}` and `POST /v2/summary/{resource}/{user_id}`: the phone SDKs' envelope. */
export const ingestionEnvelope = z.object({
  stage: z.enum(['daily', 'historical']).default('daily').describe('daily: new data; historical: a backfill (its final chunk ends it).'),
  start_date: backfillDay.optional().describe('Historical stage: first day of the backfill (a date-time counts as its UTC day).'),
  end_date: backfillDay.optional().describe('Historical stage: last day of the backfill (a date-time counts as its UTC day).'),
  time_zone: ianaTimeZone
    .optional()
    .describe("IANA id; default the user's fallback time zone, else UTC. Reads offset-less timestamps and stamps timezone_offset."),
  provider: slug.default('manual').describe('The source of the data (default manual).'),
  source_type: slug.default('unknown').describe('The kind of device: watch, phone, ring, cuff, ... (part of a sample key).'),
  is_final_chunk: z.boolean().default(true).describe('Historical stage: the last chunk of the backfill.'),
  data: z
    .union([z.array(z.unknown()).max(MAX_ITEMS_PER_REQUEST), z.record(z.string().max(64), z.unknown())])
    .describe(
      "Samples (timeseries) or summary objects, in labflow's shape or the mobile SDKs' own (docs/mobile.md); the iOS SDK sends its body and profile summaries as one object.",
    ),
});
export type IngestionEnvelope = z.output<typeof ingestionEnvelope>;
export class IngestionEnvelopeDto extends createZodDto(ingestionEnvelope) {}

export class TimeseriesIngestParams extends createZodDto(z.object({ user_id: z.uuid(), resource: z.string().max(64) })) {}

export class SummaryIngestParams extends createZodDto(z.object({ resource: z.string().max(64), user_id: z.uuid() })) {}

export class UserIdParams extends createZodDto(z.object({ user_id: z.uuid() })) {}

export class DeviceParams extends createZodDto(z.object({ user_id: z.uuid(), device_id: z.uuid() })) {}

export class TimeseriesReadParams extends createZodDto(z.object({ user_id: z.uuid(), resource: z.string().max(64) })) {}

export class SubtypeReadParams extends createZodDto(z.object({ user_id: z.uuid(), resource: z.string().max(64), subtype: z.string().max(64) })) {}

/** `YYYY-MM-DD` or an ISO date-time (as Junction takes them). */
const dateOrDateTime = z.union([isoDate, z.iso.datetime({ offset: true, local: true }).max(64)]);

export const rangeQuery = z.object({
  start_date: dateOrDateTime.describe('From this date (00:00:00 UTC when no time is given) or date-time, inclusive.'),
  end_date: dateOrDateTime.optional().describe('To this date (23:59:59.999 UTC when no time is given) or date-time, inclusive; default now.'),
  provider: slug.optional().describe('Only this provider.'),
});
export class RangeQuery extends createZodDto(rangeQuery) {}

export class GroupedQuery extends createZodDto(
  rangeQuery.extend({
    next_cursor: z.string().max(512).optional().describe('The next_cursor of the previous page.'),
    cursor: z.string().max(512).optional().describe('Deprecated name of next_cursor.'),
  }),
) {}

export class OptionalProviderQuery extends createZodDto(z.object({ provider: slug.optional() })) {}

export class IntrospectQuery extends createZodDto(
  z.object({
    user_id: z.uuid().optional(),
    provider: slug.optional(),
    user_limit: z.coerce.number().int().min(1).max(1000).default(50),
    cursor: z.string().max(512).optional(),
    next_cursor: z.string().max(512).optional(),
  }),
) {}

/** `GET /v2/providers`: `source_type` keeps the providers whose data arrives that way. */
export class ProvidersQuery extends createZodDto(z.object({ source_type: z.enum(PROVIDER_SOURCE_TYPES).optional() })) {}

export class StreamParams extends createZodDto(z.object({ id: z.uuid() })) {}

/** Summary reads: `start_date` required except for profile and devices (checked by the service). */
export class OptionalRangeQuery extends createZodDto(
  z.object({
    start_date: dateOrDateTime.optional(),
    end_date: dateOrDateTime.optional(),
    provider: slug.optional(),
  }),
) {}
