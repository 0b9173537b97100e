/**
 * What AggregationService hands AggregationRepository: a query of Junction's query language,
 * checked and resolved to names labflow stores (no SQL, no user text). The repository turns it
 * into one statement.
 */
import type { AGGREGATE_FUNCS, DATE_PARTS, PERIOD_UNITS } from './aggregation.dto';

export type AggregateFunc = (typeof AGGREGATE_FUNCS)[number];
export type TruncUnit = (typeof PERIOD_UNITS)[number];
export type DatePart = (typeof DATE_PARTS)[number];

/** Where a query's rows come from. */
export type PlanSource = { table: 'timeseries'; resource: string } | { table: 'sleep' | 'activity' };

/**
 * A value of a row: the table's index (its time), one of its stored columns, or a field of a
 * summary's data. `type` says how it reads back.
 */
export type PlanValue =
  | { kind: 'index' }
  | { kind: 'column'; column: 'value' | 'duration' | 'provider' | 'source_type' | 'timezone_offset' | 'sample_type' | 'id'; type: 'number' | 'text' }
  | { kind: 'data'; field: string; type: 'number' | 'text' | 'time' };

export type PlanExpr =
  | { kind: 'aggregate'; func: AggregateFunc; value: PlanValue }
  | { kind: 'date_trunc'; unit: TruncUnit; count: number }
  | { kind: 'date_part'; part: DatePart }
  | { kind: 'value'; value: PlanValue };

export interface AggregationPlan {
  source: PlanSource;
  /** Output columns in order, each with its name in the result table. */
  select: Array<{ name: string; expr: PlanExpr }>;
  groupBy: PlanExpr[];
}

/** The rows a query may answer with: more means the timeframe or the buckets are too fine. */
export const MAX_RESULT_ROWS = 10_000;
