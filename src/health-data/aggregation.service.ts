import { Injectable } from '@nestjs/common';
import type { TeamPrincipal } from '../auth/principal';
import { notFound, validationError } from '../common/errors';
import { UsersRepository } from '../users/users.repository';
import { type AggregationPlan, MAX_RESULT_ROWS, type PlanExpr, type PlanSource, type PlanValue } from './aggregation-plan';
import type { AggregationQuery, GroupByExpr, Period, QueryBatch, ValueExpr } from './aggregation.dto';
import { AggregationRepository } from './aggregation.repository';
import { TIMESERIES_RESOURCES } from './registry';

type Loc = Array<string | number>;

/** Timeseries by the names the query language gives them (the events' names: `weight`, `fat`). */
const TIMESERIES_BY_EVENT = new Map(TIMESERIES_RESOURCES.map((resource) => [resource.event, resource]));

/** Where a row came from: every table stores its provider and source type (`{source: …}` and each table's own columns). */
const SOURCE_COLUMNS: Record<string, PlanValue> = {
  source_provider: { kind: 'column', column: 'provider', type: 'text' },
  source_type: { kind: 'column', column: 'source_type', type: 'text' },
};

/** A timeseries expression's fields, as stored; `duration` only for interval samples. */
const TIMESERIES_FIELDS: Record<string, PlanValue> = {
  ...SOURCE_COLUMNS,
  value: { kind: 'column', column: 'value', type: 'number' },
  duration: { kind: 'column', column: 'duration', type: 'number' },
  timezone_offset: { kind: 'column', column: 'timezone_offset', type: 'number' },
  type: { kind: 'column', column: 'sample_type', type: 'text' },
};

/** Summary columns of the query language and the stored summary fields they read (Junction's names). */
const SUMMARY_COLUMNS: Record<'sleep' | 'activity', Record<string, PlanValue>> = {
  sleep: {
    id: { kind: 'column', column: 'id', type: 'text' },
    session_start: { kind: 'data', field: 'bedtime_start', type: 'time' },
    session_end: { kind: 'data', field: 'bedtime_stop', type: 'time' },
    type: { kind: 'data', field: 'type', type: 'text' },
    duration_second: { kind: 'data', field: 'duration', type: 'number' },
    stage_asleep_second: { kind: 'data', field: 'total', type: 'number' },
    stage_awake_second: { kind: 'data', field: 'awake', type: 'number' },
    stage_light_second: { kind: 'data', field: 'light', type: 'number' },
    stage_rem_second: { kind: 'data', field: 'rem', type: 'number' },
    stage_deep_second: { kind: 'data', field: 'deep', type: 'number' },
    latency_second: { kind: 'data', field: 'latency', type: 'number' },
    heart_rate_minimum: { kind: 'data', field: 'hr_lowest', type: 'number' },
    heart_rate_mean: { kind: 'data', field: 'hr_average', type: 'number' },
    efficiency: { kind: 'data', field: 'efficiency', type: 'number' },
    hrv_mean_rmssd: { kind: 'data', field: 'average_hrv', type: 'number' },
    skin_temperature_delta: { kind: 'data', field: 'temperature_delta', type: 'number' },
    respiratory_rate: { kind: 'data', field: 'respiratory_rate', type: 'number' },
    score: { kind: 'data', field: 'score', type: 'number' },
    ...SOURCE_COLUMNS,
  },
  activity: {
    date: { kind: 'index' },
    calories_total: { kind: 'data', field: 'calories_total', type: 'number' },
    calories_active: { kind: 'data', field: 'calories_active', type: 'number' },
    steps: { kind: 'data', field: 'steps', type: 'number' },
    distance_meter: { kind: 'data', field: 'distance', type: 'number' },
    floors_climbed: { kind: 'data', field: 'floors_climbed', type: 'number' },
    ...SOURCE_COLUMNS,
  },
};

/** Functions of a number only; the others (count, oldest, newest) take any value. */
const NUMERIC_FUNCS = new Set(['mean', 'min', 'max', 'sum', 'median', 'stddev']);

const PERIOD_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 };

/**
 * Junction's aggregation API (`POST /aggregate/v1/user/{user_id}/query`) over what labflow
 * stores: any numeric timeseries (discrete and interval), sleep and activity summaries. Each
 * query reads one of them over the batch's timeframe and answers aggregates (mean, min, max,
 * sum, count, median, stddev, oldest, newest), over the whole timeframe or per group (time
 * buckets of `date_trunc`, parts of the time by `date_part`, or a column such as the source
 * provider). Times are UTC. What labflow cannot answer — `where`, provider priority overrides,
 * workouts, body, meals, profile, value macros, rows without aggregation — is a 422 naming it.
 */
@Injectable()
export class AggregationService {
  constructor(
    private readonly users: UsersRepository,
    private readonly repository: AggregationRepository,
  ) {}

  async query(team: TeamPrincipal, userId: string, batch: QueryBatch) {
    if (batch.config?.provider_priority_overrides?.length) {
      throw validationError(['body', 'config', 'provider_priority_overrides'], 'Provider priority overrides are not supported by labflow.');
    }
    const plans = batch.queries.map((query, index) => this.plan(query, ['body', 'queries', index]));
    if (!(await this.users.findLive(team, userId))) throw notFound('User');
    const window = windowOf(batch.timeframe.anchor, batch.timeframe.past);
    const results = [];
    for (const [index, plan] of plans.entries()) {
      const table = await this.evaluate(userId, plan, window);
      if (!table) {
        throw validationError(
          ['body', 'queries', index, 'group_by'],
          `The query answers more than ${MAX_RESULT_ROWS} rows: shorten the timeframe or use coarser buckets.`,
        );
      }
      results.push({ table });
    }
    return { results };
  }

  /**
   * One query's result table for the user over the window; null when it would answer more than
   * MAX_RESULT_ROWS rows. The plan comes from `plan`.
   */
  evaluate(userId: string, plan: AggregationPlan, window: { from: Date; to: Date }): Promise<Record<string, unknown[]> | null> {
    return this.repository.run(userId, plan, window);
  }

  /** Checks one query and resolves its names; a 422 at `loc` names what labflow cannot answer. */
  plan(query: AggregationQuery, loc: Loc): AggregationPlan {
    if (query.where !== undefined) throw validationError([...loc, 'where'], '`where` is not supported by labflow yet: group by the column instead.');
    let source: PlanSource | null = null;
    let timeseriesIndexAt: Loc | null = null;
    /** Every expression that names data must name the same table (`any timeseries`: the timeseries index, which names none). */
    const useSource = (next: PlanSource | 'any timeseries', at: Loc) => {
      if (next === 'any timeseries') {
        timeseriesIndexAt ??= at;
        return;
      }
      if (source && sourceName(source) !== sourceName(next)) {
        throw validationError(at, `A query reads one table; this one reads ${sourceName(source)} and ${sourceName(next)}.`);
      }
      source = next;
    };
    const groupBy = (query.group_by ?? []).map((expr, index) => this.groupExpr(expr, [...loc, 'group_by', index], useSource));
    const select: AggregationPlan['select'] = [];
    for (const [index, expr] of query.select.entries()) {
      const at = [...loc, 'select', index];
      if ('group_key' in expr) {
        const keys = expr.group_key === '*' ? groupBy.map((_, key) => key) : [expr.group_key];
        for (const key of keys) {
          if (!groupBy[key]) throw validationError([...at, 'group_key'], `There is no group_by[${key}].`);
          select.push({ name: groupKeyName(query.group_by?.[key] as GroupByExpr), expr: groupBy[key] });
        }
      } else if ('func' in expr) {
        const value = this.value(expr.arg, [...at, 'arg'], useSource);
        if (NUMERIC_FUNCS.has(expr.func) && valueType(value) !== 'number') {
          throw validationError([...at, 'func'], `${expr.func} needs a number; ${labelOf(expr.arg)} is not one.`);
        }
        select.push({ name: `${expr.func}(${labelOf(expr.arg)})`, expr: { kind: 'aggregate', func: expr.func, value } });
      } else {
        // A plain column: only as one of the group keys (rows without aggregation are the timeseries and summary routes' job).
        const value = this.value(expr, at, useSource);
        const key = (query.group_by ?? []).findIndex((group) => JSON.stringify(group) === JSON.stringify(expr));
        if (key < 0) throw validationError(at, `${labelOf(expr)} is neither aggregated nor a group key: aggregate it, or group by it.`);
        select.push({ name: labelOf(expr), expr: { kind: 'value', value } });
      }
    }
    // `source` is set inside useSource, which the compiler does not follow: read it as what it may be.
    const table = source as PlanSource | null;
    if (!table) throw validationError([...loc, 'select'], 'The query names no data: select an aggregate of a timeseries, sleep or activity column.');
    if (timeseriesIndexAt && table.table !== 'timeseries')
      throw validationError(timeseriesIndexAt, `The timeseries index in a query of ${table.table}: use {index: '${table.table}'}.`);
    return { source: table, select: uniqueNames(select), groupBy };
  }

  private groupExpr(expr: GroupByExpr, at: Loc, useSource: (source: PlanSource | 'any timeseries', at: Loc) => void): PlanExpr {
    if ('date_trunc' in expr || 'date_part' in expr) {
      if ('index' in expr.arg) this.value(expr.arg, [...at, 'arg'], useSource);
      if ('date_part' in expr) return { kind: 'date_part', part: expr.date_part };
      const { unit, value } = expr.date_trunc;
      if (value > 1 && !PERIOD_MS[unit]) throw validationError([...at, 'date_trunc', 'value'], `Buckets of ${unit}s are one ${unit} long.`);
      return { kind: 'date_trunc', unit, count: value };
    }
    return { kind: 'value', value: this.value(expr, at, useSource) };
  }

  /** A value expression resolved against what labflow stores, noting the table it reads. */
  private value(expr: ValueExpr, at: Loc, useSource: (source: PlanSource | 'any timeseries', at: Loc) => void): PlanValue {
    if ('timeseries' in expr) {
      const resource = TIMESERIES_BY_EVENT.get(expr.timeseries);
      if (!resource) throw validationError([...at, 'timeseries'], `${expr.timeseries} is not a timeseries labflow knows.`);
      if (resource.kind !== 'discrete' && resource.kind !== 'interval') {
        throw validationError([...at, 'timeseries'], `${expr.timeseries} samples are not single numbers; read them with the timeseries routes.`);
      }
      const field = TIMESERIES_FIELDS[expr.field];
      if (!field || (expr.field === 'duration' && resource.kind !== 'interval')) {
        throw validationError([...at, 'field'], `${expr.timeseries} has no field ${expr.field} in labflow.`);
      }
      useSource({ table: 'timeseries', resource: resource.slug }, at);
      return field;
    }
    if ('index' in expr) {
      if (expr.index !== 'timeseries' && expr.index !== 'sleep' && expr.index !== 'activity') throw unsupportedTable(expr.index, at);
      // The timeseries index says nothing of which timeseries: another expression of the query does.
      useSource(expr.index === 'timeseries' ? 'any timeseries' : { table: expr.index }, at);
      return { kind: 'index' };
    }
    if ('source' in expr) {
      const column = SOURCE_COLUMNS[expr.source];
      if (!column) throw validationError([...at, 'source'], `${expr.source} is not stored by labflow.`);
      return column;
    }
    if ('value_macro' in expr) throw validationError(at, `The value macro ${expr.value_macro} is not supported by labflow.`);
    const [table, column] = Object.entries(expr)[0] as [string, string];
    if (table !== 'sleep' && table !== 'activity') throw unsupportedTable(table, at);
    const resolved = SUMMARY_COLUMNS[table][column];
    if (!resolved) throw validationError([...at, table], `${table} has no column ${column} in labflow.`);
    useSource({ table }, at);
    return resolved;
  }
}

function unsupportedTable(table: string, at: Loc) {
  return validationError(at, `Queries of ${table} are not supported by labflow yet: timeseries, sleep and activity are.`);
}

function sourceName(source: PlanSource): string {
  return source.table === 'timeseries' ? `timeseries ${source.resource}` : source.table;
}

function valueType(value: PlanValue): 'number' | 'text' | 'time' {
  return value.kind === 'index' ? 'time' : value.type;
}

/** How a result column is named after the expression that made it (`mean(heartrate.value)`). */
function labelOf(expr: ValueExpr): string {
  if ('timeseries' in expr) return `${expr.timeseries}.${expr.field}`;
  if ('index' in expr) return `${expr.index}.index`;
  if ('source' in expr) return expr.source;
  if ('value_macro' in expr) return expr.value_macro;
  const [table, column] = Object.entries(expr)[0] as [string, string];
  return `${table}.${column}`;
}

function groupKeyName(expr: GroupByExpr): string {
  if ('date_trunc' in expr) return `date_trunc(${expr.date_trunc.value} ${expr.date_trunc.unit})`;
  if ('date_part' in expr) return `date_part(${expr.date_part})`;
  return labelOf(expr);
}

/** Column names must be keys of the result table: a repeated one gets `#2`, `#3`. */
function uniqueNames(select: AggregationPlan['select']): AggregationPlan['select'] {
  const seen = new Map<string, number>();
  return select.map(({ name, expr }) => {
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return { name: count === 1 ? name : `${name}#${count}`, expr };
  });
}

/** [anchor − past, anchor): a date anchor means the end of that day (UTC). */
export function windowOf(anchor: string, past: Period): { from: Date; to: Date } {
  const to = /^\d{4}-\d{2}-\d{2}$/.test(anchor) ? new Date(Date.parse(`${anchor}T00:00:00Z`) + 86_400_000) : new Date(anchor);
  const from = new Date(to);
  if (PERIOD_MS[past.unit]) from.setTime(to.getTime() - past.value * PERIOD_MS[past.unit]);
  else if (past.unit === 'month') from.setUTCMonth(from.getUTCMonth() - past.value);
  else from.setUTCFullYear(from.getUTCFullYear() - past.value);
  return { from, to };
}
