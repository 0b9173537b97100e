import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';

/**
 * `POST /aggregate/v1/user/{user_id}/query` (the SDK's QueryBatch): the shapes of Junction's query
 * language as the SDK types them. Which names and combinations labflow can answer is checked by
 * AggregationService, which answers the others with a 422 naming what it cannot do.
 */
export const PERIOD_UNITS = ['minute', 'hour', 'day', 'week', 'month', 'year'] as const;
export const AGGREGATE_FUNCS = ['mean', 'min', 'max', 'sum', 'count', 'median', 'stddev', 'oldest', 'newest'] as const;
export const DATE_PARTS = ['minute', 'hour', 'day', 'week', 'month', 'year', 'weekday', 'week_of_year', 'day_of_year'] as const;
const INDEXES = ['sleep', 'activity', 'workout', 'body', 'meal', 'profile', 'timeseries'] as const;
const SOURCE_COLUMNS = ['source_provider', 'source_type', 'source_app_id', 'source_workout_id', 'source_sport'] as const;

const name = z.string().min(1).max(64);
export const period = z.strictObject({ value: z.number().int().min(1).max(1000).default(1), unit: z.enum(PERIOD_UNITS) });

const indexExpr = z.strictObject({ index: z.enum(INDEXES) });
const placeholder = z.strictObject({ placeholder: z.literal(true) });
const timeseriesExpr = z.strictObject({ timeseries: name, field: name });
const sourceExpr = z.strictObject({ source: z.enum(SOURCE_COLUMNS) });
const macroExpr = z.strictObject({ value_macro: name, version: z.string().max(32).optional() });
const summaryColumnExprs = [
  z.strictObject({ sleep: name }),
  z.strictObject({ activity: name }),
  z.strictObject({ workout: name }),
  z.strictObject({ body: name }),
  z.strictObject({ meal: name }),
  z.strictObject({ profile: name }),
] as const;

/** What holds a value: a column of a summary table or a timeseries, a source column, an index, or a macro. */
const valueExpr = z.union([timeseriesExpr, sourceExpr, indexExpr, macroExpr, ...summaryColumnExprs]);
const aggregateExpr = z.strictObject({ arg: valueExpr, func: z.enum(AGGREGATE_FUNCS) });
const groupKeyExpr = z.strictObject({ group_key: z.union([z.number().int().min(0).max(31), z.literal('*')]) });
const dateTruncExpr = z.strictObject({ date_trunc: period, arg: z.union([indexExpr, placeholder]) });
const datePartExpr = z.strictObject({ date_part: z.enum(DATE_PARTS), arg: z.union([indexExpr, placeholder]) });

export const querySchema = z.strictObject({
  select: z
    .array(z.union([aggregateExpr, groupKeyExpr, valueExpr]))
    .min(1)
    .max(32),
  group_by: z
    .array(z.union([dateTruncExpr, datePartExpr, valueExpr]))
    .max(8)
    .optional(),
  where: z.string().max(2000).optional(),
});

export class QueryBatchDto extends createZodDto(
  z.strictObject({
    timeframe: z.strictObject({
      type: z.literal('relative'),
      anchor: z.union([z.iso.date(), z.iso.datetime({ offset: true })]).describe('The end of the window: a date (its whole day, UTC) or an instant.'),
      past: period.describe('How far the window reaches back from the anchor.'),
    }),
    queries: z.array(querySchema).min(1).max(10),
    config: z.looseObject({ provider_priority_overrides: z.array(z.unknown()).optional() }).optional(),
  }),
) {}

export class AggregationUserParams extends createZodDto(z.object({ user_id: z.uuid() })) {}

export type QueryBatch = z.infer<typeof QueryBatchDto.schema>;
export type AggregationQuery = z.infer<typeof querySchema>;
export type ValueExpr = z.infer<typeof valueExpr>;
export type GroupByExpr = NonNullable<AggregationQuery['group_by']>[number];
export type Period = z.infer<typeof period>;
