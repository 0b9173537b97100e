import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { type AggregationPlan, MAX_RESULT_ROWS, type PlanExpr, type PlanSource, type PlanValue } from './aggregation-plan';

/**
 * Turns an AggregationPlan into one statement over `health_samples`/`health_series` (a
 * timeseries) or `health_summaries` (sleep, activity). Every SQL fragment comes from the tables
 * below, chosen by names the service resolved; the user's id and the window are parameters.
 */
const FIELD = /^[a-z_]{1,64}$/;

/** The rows of a source within [$from, $to) of one user, and the time each row stands at (its index). */
function sourceSql(source: PlanSource): { from: string; index: string } {
  if (source.table === 'timeseries') {
    return {
      from: `FROM health_samples s JOIN health_series h ON h.id = s.series_id
        WHERE h.user_id = $1 AND h.resource = $4 AND s.ts >= $2 AND s.ts < $3`,
      index: 's.ts',
    };
  }
  if (source.table === 'sleep') {
    const start = `(s.data->>'bedtime_start')::timestamptz`;
    // The day bounds let the (user_id, type, day) index find the rows; the start decides.
    return {
      from: `FROM health_summaries s WHERE s.user_id = $1 AND s.type = 'sleep'
        AND s.day BETWEEN ($2::timestamptz AT TIME ZONE 'UTC')::date - 2 AND ($3::timestamptz AT TIME ZONE 'UTC')::date + 2
        AND ${start} >= $2 AND ${start} < $3`,
      index: start,
    };
  }
  const day = `(s.day::timestamp AT TIME ZONE 'UTC')`;
  return { from: `FROM health_summaries s WHERE s.user_id = $1 AND s.type = 'activity' AND ${day} >= $2 AND ${day} < $3`, index: day };
}

function valueSql(value: PlanValue, source: PlanSource, index: string): string {
  if (value.kind === 'index') return index;
  if (value.kind === 'data') {
    if (!FIELD.test(value.field)) throw new Error(`not a summary field: ${value.field}`);
    const json = `s.data->'${value.field}'`;
    if (value.type === 'number') return `CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json})::float8 END`;
    if (value.type === 'time') return `(s.data->>'${value.field}')::timestamptz`;
    return `(s.data->>'${value.field}')`;
  }
  const timeseries = source.table === 'timeseries';
  switch (value.column) {
    case 'value':
      return 's.value';
    case 'duration':
      return 'extract(epoch FROM s.end_ts - s.ts)::float8';
    case 'timezone_offset':
      return 's.timezone_offset::float8';
    case 'sample_type':
      return 's.sample_type';
    case 'id':
      return 's.id::text';
    case 'provider':
      return timeseries ? 'h.provider' : 's.provider';
    case 'source_type':
      return timeseries ? 'h.source_type' : 's.source_type';
  }
}

const AGGREGATES: Record<string, (x: string, index: string) => string> = {
  mean: (x) => `avg(${x})`,
  min: (x) => `min(${x})`,
  max: (x) => `max(${x})`,
  sum: (x) => `sum(${x})`,
  count: (x) => `count(${x})::int`,
  median: (x) => `percentile_cont(0.5) WITHIN GROUP (ORDER BY ${x})`,
  stddev: (x) => `stddev_samp(${x})`,
  oldest: (x, index) => `(array_agg(${x} ORDER BY ${index}) FILTER (WHERE ${x} IS NOT NULL))[1]`,
  newest: (x, index) => `(array_agg(${x} ORDER BY ${index} DESC) FILTER (WHERE ${x} IS NOT NULL))[1]`,
};

/** date_part: Monday is weekday 0; weeks are ISO weeks. */
const DATE_PARTS: Record<string, string> = {
  minute: 'minute',
  hour: 'hour',
  day: 'day',
  week: 'week',
  month: 'month',
  year: 'year',
  weekday: 'isodow',
  week_of_year: 'week',
  day_of_year: 'doy',
};

function exprSql(expr: PlanExpr, source: PlanSource, index: string): string {
  switch (expr.kind) {
    case 'aggregate':
      return AGGREGATES[expr.func](valueSql(expr.value, source, index), index);
    case 'date_trunc':
      // date_bin's origin is a Monday, so weeks start on Mondays as date_trunc's do.
      return expr.count === 1
        ? `date_trunc('${expr.unit}', ${index}, 'UTC')`
        : `date_bin('${expr.count} ${expr.unit}s'::interval, ${index}, '2000-01-03T00:00:00Z'::timestamptz)`;
    case 'date_part': {
      const part = `extract(${DATE_PARTS[expr.part]} FROM ${index} AT TIME ZONE 'UTC')::int`;
      return expr.part === 'weekday' ? `(${part} - 1)` : part;
    }
    case 'value':
      return valueSql(expr.value, source, index);
  }
}

@Injectable()
export class AggregationRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The plan's result table (column name → values, one per row), or null past MAX_RESULT_ROWS rows. */
  async run(userId: string, plan: AggregationPlan, window: { from: Date; to: Date }): Promise<Record<string, unknown[]> | null> {
    const { from, index } = sourceSql(plan.source);
    const columns = plan.select.map(({ expr }, at) => `${exprSql(expr, plan.source, index)} AS c${at}`);
    const groups = plan.groupBy.map((expr) => exprSql(expr, plan.source, index));
    const grouping = groups.length > 0 ? `GROUP BY ${groups.join(', ')} ORDER BY ${groups.join(', ')}` : '';
    const params: unknown[] = [userId, window.from, window.to];
    if (plan.source.table === 'timeseries') params.push(plan.source.resource);
    const rows: Array<Record<string, unknown>> = await this.db.query(`SELECT ${columns.join(', ')} ${from} ${grouping} LIMIT ${MAX_RESULT_ROWS + 1}`, params);
    if (rows.length > MAX_RESULT_ROWS) return null;
    const table: Record<string, unknown[]> = {};
    plan.select.forEach(({ name }, at) => {
      table[name] = rows.map((row) => {
        const value = row[`c${at}`];
        return value instanceof Date ? value.toISOString() : value;
      });
    });
    return table;
  }
}
