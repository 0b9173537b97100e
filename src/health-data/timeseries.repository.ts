import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { runPreparedArrays } from '../common/prepared-statement';
import { copyIn, copyRows, numberArray, textArray } from './sample-encoding';
import type { NormalisedSample } from './sample-schemas';

/** Where a batch of samples belongs: one user, resource, provider and source type. */
export interface SeriesKey {
  userId: string;
  resource: string;
  provider: string;
  sourceType: string;
}

/** A stored sample as reads need it (times as epoch ms). */
export interface StoredSample {
  provider: string;
  sourceType: string;
  sampleKey: string;
  ts: number;
  endTs: number | null;
  value: number | null;
  diastolic: number | null;
  sampleType: string | null;
  timezoneOffset: number | null;
  extra: Record<string, unknown> | null;
}

/** A position in the (provider, source_type, sample_key, ts) order of a range read. */
export interface SeriesPosition {
  provider: string;
  sourceType: string;
  sampleKey: string;
  ts: number;
}

const MONTH_MS = 31 * 86_400_000;

/**
 * The SQL of timeseries samples: `health_series` (one row per user, resource, provider, source
 * type and sample key, with a bigint id) and `health_samples` (one row per sample, keyed by
 * series id and time; monthly range partitions on `ts`). See migration 1763790180000. Writes are
 * one multi-row statement per batch from column arrays (`unnest`), never a statement per row.
 */
@Injectable()
export class TimeseriesRepository {
  /** Months (`YYYY-MM`) whose partition is known to exist in this process. */
  private readonly partitions = new Set<string>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Makes sure a partition exists for every month the samples touch (outside the caller's
   * transaction: creating one takes a lock on the parent table that should not be held long).
   */
  async ensurePartitions(samples: NormalisedSample[]): Promise<void> {
    if (samples.length === 0) return;
    let min = Infinity;
    let max = -Infinity;
    for (const sample of samples) {
      if (sample.ts < min) min = sample.ts;
      if (sample.ts > max) max = sample.ts;
    }
    const months = new Set<string>();
    for (let at = min; at < max + MONTH_MS; at += 28 * 86_400_000) {
      const month = new Date(Math.min(at, max)).toISOString().slice(0, 7);
      months.add(month);
    }
    for (const month of months) {
      if (this.partitions.has(month)) continue;
      await this.db.query(`SELECT labflow_health_samples_partition($1::date)`, [`${month}-01`]);
      this.partitions.add(month);
    }
  }

  /**
   * Upserts the samples (at most one per key: see lastPerKey): a sample already stored under the
   * same (user, resource, provider, source type, sample key, timestamp) takes the new value.
   * Returns how many rows were new and how many replaced a stored sample (a new row gets the
   * transaction's start time (`now()`) as updated_at, a replaced one the clock time, which is
   * later: `xmax = 0`, the usual test, is not available on a partitioned table), or null when the
   * user no longer exists.
   */
  async upsert(manager: EntityManager, key: SeriesKey, samples: NormalisedSample[]): Promise<{ inserted: number; updated: number } | null> {
    if (samples.length === 0) return { inserted: 0, updated: 0 };
    const series = await this.holdSeries(manager, key, distinctSampleKeys(samples));
    if (!series) return null;
    // Most batches are new data. When the series are new, or hold nothing in the batch's time
    // range (one index probe), a plain binary COPY stores it: in Postgres about a third cheaper
    // than an INSERT from unnest (itself 1.5x faster than the upsert, which pays a speculative
    // insertion per row), and nothing to print or parse on either side. A writer that stored
    // some of these keys since the probe makes it fail on the key; then the savepoint undoes it
    // and the upsert runs.
    if (series.allNew || !(await this.anyStored(manager, rangeOf(samples, series.ids)))) {
      await manager.query('SAVEPOINT timeseries_insert');
      try {
        const copy = copyRows(samples, series.ids, series.nowMicros);
        await copyIn(manager, `COPY health_samples ${copy.columns} FROM STDIN (FORMAT binary)`, copy.data);
        await manager.query('RELEASE SAVEPOINT timeseries_insert');
        return { inserted: samples.length, updated: 0 };
      } catch (error) {
        if ((error as { code?: string }).code !== '23505') throw error;
        await manager.query('ROLLBACK TO SAVEPOINT timeseries_insert');
      }
    }
    const columns = columnsOf(samples, series.ids);
    const [row]: Array<{ inserted: string; total: string }> = await manager.query(
      `WITH upserted AS (
         INSERT INTO health_samples AS t ${INSERT_COLUMNS} ${SELECT_SAMPLES}
         ON CONFLICT (series_id, ts) DO UPDATE
           SET end_ts = EXCLUDED.end_ts, value = EXCLUDED.value, diastolic = EXCLUDED.diastolic,
               sample_type = EXCLUDED.sample_type, timezone_offset = EXCLUDED.timezone_offset,
               extra = EXCLUDED.extra, updated_at = clock_timestamp()
         RETURNING t.updated_at = now() AS inserted)
       SELECT count(*) FILTER (WHERE inserted) AS inserted, count(*) AS total FROM upserted`,
      columns.params,
    );
    const inserted = Number(row.inserted);
    return { inserted, updated: Number(row.total) - inserted };
  }

  /**
   * The ids of the series of `key` with these sample keys, created when missing, each held with
   * FOR KEY SHARE until the transaction ends: erasing the user (which deletes its series, and
   * with them their samples) waits for this ingestion rather than leave its samples behind.
   * Null when the user is gone (the new series' foreign key refuses it).
   */
  private async holdSeries(
    manager: EntityManager,
    key: SeriesKey,
    sampleKeys: string[],
  ): Promise<{ ids: Map<string, string>; allNew: boolean; nowMicros: number } | null> {
    // The user's row first (FOR KEY SHARE, as a new series' foreign key check takes it), then its
    // series: locked in the order an erasure locks them, so the two wait for each other instead
    // of deadlocking when a batch both holds existing series and creates a new one. With it the
    // transaction's now() in microseconds since 1970, the updated_at of new rows.
    const [user]: Array<{ now: string }> = await manager.query(
      `SELECT (extract(epoch FROM now()) * 1000000)::bigint AS now FROM users WHERE id = $1 FOR KEY SHARE`,
      [key.userId],
    );
    // Gone (erased since the caller found it): its series went with it.
    if (!user) return null;
    const nowMicros = Number(user.now);
    const select = () =>
      manager.query(
        `SELECT id, sample_key FROM health_series
          WHERE user_id = $1 AND resource = $2 AND provider = $3 AND source_type = $4 AND sample_key = ANY($5::text[])
          FOR KEY SHARE`,
        [key.userId, key.resource, key.provider, key.sourceType, sampleKeys],
      ) as Promise<Array<{ id: string; sample_key: string }>>;
    const ids = new Map((await select()).map((row) => [row.sample_key, row.id]));
    if (ids.size === sampleKeys.length) return { ids, allNew: false, nowMicros };
    const missing = sampleKeys.filter((sampleKey) => !ids.has(sampleKey));
    let created: Array<{ id: string; sample_key: string }>;
    try {
      // A new row is locked by its insert; one a concurrent ingestion created meanwhile is not
      // returned (DO NOTHING) and is read, and held, below.
      created = await manager.query(
        `INSERT INTO health_series (user_id, resource, provider, source_type, sample_key)
         SELECT $1, $2, $3, $4, k FROM unnest($5::text[]) AS k
         ON CONFLICT (user_id, resource, provider, source_type, sample_key) DO NOTHING
         RETURNING id, sample_key`,
        [key.userId, key.resource, key.provider, key.sourceType, missing],
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23503') return null;
      throw error;
    }
    for (const row of created) ids.set(row.sample_key, row.id);
    const allNew = created.length === sampleKeys.length;
    if (ids.size < sampleKeys.length) for (const row of await select()) ids.set(row.sample_key, row.id);
    return { ids, allNew, nowMicros };
  }

  /** Whether any of the batch's series stores a sample between the batch's first and last timestamp. */
  private async anyStored(manager: EntityManager, columns: Pick<SampleColumns, 'seriesIds' | 'minTs' | 'maxTs'>): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM health_samples
        WHERE series_id = ANY($1::bigint[])
          AND ts BETWEEN timestamptz 'epoch' + $2::bigint * interval '1 millisecond' AND timestamptz 'epoch' + $3::bigint * interval '1 millisecond'
        LIMIT 1`,
      [columns.seriesIds, columns.minTs, columns.maxTs],
    );
    return rows.length > 0;
  }

  /**
   * Samples of one user's resource in [fromMs, toMs], in (provider, source type, sample key,
   * timestamp) order, after `after` when given, at most `limit`; `sampleType` narrows to one
   * sample type (cholesterol/ldl). A named statement per combination of filters (rangeStatement),
   * rows as arrays: a grouped read of a day is 1,440 rows.
   */
  async readRange(
    userId: string,
    resource: string,
    range: { fromMs: number; toMs: number; provider?: string; sampleType?: string },
    after: SeriesPosition | null,
    limit: number,
  ): Promise<StoredSample[]> {
    const params: unknown[] = [userId, resource, range.fromMs, range.toMs, limit];
    if (range.provider) params.push(range.provider);
    if (range.sampleType) params.push(range.sampleType);
    if (after) params.push(after.provider, after.sourceType, after.sampleKey, after.ts);
    const statement = rangeStatement(Boolean(range.provider), Boolean(range.sampleType), Boolean(after));
    const rows = await runPreparedArrays(this.db, statement.name, statement.text, params);
    const samples = new Array<StoredSample>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      samples[i] = {
        provider: row[0] as string,
        sourceType: row[1] as string,
        sampleKey: row[2] as string,
        ts: row[3] as number,
        endTs: row[4] as number | null,
        value: row[5] as number | null,
        diastolic: row[6] as number | null,
        sampleType: row[7] as string | null,
        timezoneOffset: row[8] as number | null,
        extra: row[9] as Record<string, unknown> | null,
      };
    }
    return samples;
  }

  /** Per resource and provider: first and last sample time and count, for introspection. */
  async statistics(
    userIds: string[],
    provider?: string,
  ): Promise<Array<{ userId: string; resource: string; provider: string; oldest: Date; newest: Date; count: number }>> {
    const rows: Array<Record<string, unknown>> = await this.db.query(
      `SELECT s.user_id, s.resource, s.provider, min(t.ts) AS oldest, max(t.ts) AS newest, count(*) AS count
         FROM health_series s
         JOIN health_samples t ON t.series_id = s.id
        WHERE s.user_id = ANY($1::uuid[]) AND ($2::text IS NULL OR s.provider = $2)
        GROUP BY s.user_id, s.resource, s.provider`,
      [userIds, provider ?? null],
    );
    return rows.map((row) => ({
      userId: row.user_id as string,
      resource: row.resource as string,
      provider: row.provider as string,
      oldest: row.oldest as Date,
      newest: row.newest as Date,
      count: Number(row.count),
    }));
  }

  /** Makes the partitions of the current month and the next `monthsAhead` ahead of time (idempotent). */
  async createPartitionsAhead(monthsAhead: number): Promise<void> {
    await this.db.query(
      `SELECT labflow_health_samples_partition((date_trunc('month', now()) + make_interval(months => m))::date)
         FROM generate_series(0, $1::int) AS m`,
      [monthsAhead],
    );
  }

  /**
   * Retention: drops every monthly partition that ends on or before `before` (whole months only;
   * O(1) per month, no row-by-row DELETE). Returns the dropped partitions' names.
   */
  async dropPartitionsBefore(before: Date): Promise<string[]> {
    const rows: Array<{ name: string }> = await this.db.query(
      `SELECT c.relname AS name
         FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
        WHERE p.relname = 'health_samples' AND c.relname ~ '^health_samples_p[0-9]{6}$'
          AND to_date(substring(c.relname FROM '[0-9]{6}$'), 'YYYYMM') + interval '1 month' <= $1::timestamptz`,
      [before],
    );
    for (const { name } of rows) {
      await this.db.query(`DROP TABLE ${quoteIdent(name)}`);
      this.partitions.delete(`${name.slice(-6, -2)}-${name.slice(-2)}`);
    }
    return rows.map((row) => row.name);
  }
}

const rangeStatements = new Map<string, { name: string; text: string }>();

/**
 * The range read's statement for one combination of filters (each combination is its own text,
 * so its own name). Columns in the order readRange reads them; times as epoch ms, rounded to the
 * ms as a bigint and sent as float8, which the driver parses as a number (an int8 comes as text).
 */
function rangeStatement(provider: boolean, sampleType: boolean, after: boolean): { name: string; text: string } {
  const variant = `${provider ? 'p' : ''}${sampleType ? 't' : ''}${after ? 'a' : ''}`;
  let statement = rangeStatements.get(variant);
  if (statement) return statement;
  let p = 5;
  let filters = '';
  if (provider) filters += ` AND s.provider = $${++p}`;
  if (sampleType) filters += ` AND t.sample_type = $${++p}`;
  if (after) {
    filters += ` AND (s.provider, s.source_type, s.sample_key, t.ts) > ($${p + 1}, $${p + 2}, $${p + 3}, timestamptz 'epoch' + $${p + 4}::bigint * interval '1 millisecond')`;
  }
  statement = {
    name: `labflow_timeseries_range_${variant || 'all'}`,
    text: `SELECT s.provider, s.source_type, s.sample_key,
              (extract(epoch FROM t.ts) * 1000)::bigint::float8 AS ts_ms, (extract(epoch FROM t.end_ts) * 1000)::bigint::float8 AS end_ms,
              t.value, t.diastolic, t.sample_type, t.timezone_offset, t.extra
         FROM health_series s
         JOIN health_samples t ON t.series_id = s.id
        WHERE s.user_id = $1 AND s.resource = $2
          AND t.ts >= timestamptz 'epoch' + $3::bigint * interval '1 millisecond'
          AND t.ts <= timestamptz 'epoch' + $4::bigint * interval '1 millisecond'${filters}
        ORDER BY s.provider, s.source_type, s.sample_key, t.ts -- the column (index order), not the epoch alias
        LIMIT $5`,
  };
  rangeStatements.set(variant, statement);
  return statement;
}

function quoteIdent(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`Unexpected partition name: ${name}`);
  return `"${name}"`;
}

const INSERT_COLUMNS = '(series_id, ts, end_ts, value, diastolic, sample_type, timezone_offset, extra, updated_at)';
/** The samples as rows, from the column arrays of SampleColumns.params. */
const SELECT_SAMPLES = `SELECT u.id, timestamptz 'epoch' + u.s * interval '1 millisecond', timestamptz 'epoch' + u.e * interval '1 millisecond',
         u.v, u.d, u.ty, u.tz, u.x, now()
    FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::float8[], $5::float8[], $6::text[], $7::int[], $8::jsonb[])
         AS u(id, s, e, v, d, ty, tz, x)`;

interface SampleColumns {
  /** series_id, ts, end_ts, value, diastolic, sample_type, timezone_offset, extra: one array each. */
  params: unknown[];
  seriesIds: string[];
  minTs: number;
  maxTs: number;
}

/** The series ids and the time range of the samples. */
function rangeOf(samples: NormalisedSample[], seriesIds: Map<string, string>): { seriesIds: string[]; minTs: number; maxTs: number } {
  let minTs = Infinity;
  let maxTs = -Infinity;
  for (const sample of samples) {
    if (sample.ts < minTs) minTs = sample.ts;
    if (sample.ts > maxTs) maxTs = sample.ts;
  }
  return { seriesIds: [...new Set(seriesIds.values())], minTs, maxTs };
}

function distinctSampleKeys(samples: NormalisedSample[]): string[] {
  const keys = new Set<string>();
  for (const sample of samples) keys.add(sample.sampleKey);
  return [...keys];
}

/**
 * The samples as column arrays. Numbers go as array literals built here (`{1,2,NULL}`): the pg
 * driver would quote and escape every element of a 10,000-element array, which cost more CPU
 * than the insert's planning. A column that is null throughout goes as NULL, which unnest pads
 * with nulls.
 */
function columnsOf(samples: NormalisedSample[], seriesIds: Map<string, string>): SampleColumns {
  const n = samples.length;
  const series = new Array<string>(n);
  const ts = new Array<number>(n);
  const endTs = new Array<number | null>(n);
  const values = new Array<number | null>(n);
  const diastolic = new Array<number | null>(n);
  const types = new Array<string | null>(n);
  const offsets = new Array<number>(n);
  const extras = new Array<string | null>(n);
  let minTs = Infinity;
  let maxTs = -Infinity;
  for (let i = 0; i < n; i++) {
    const sample = samples[i];
    series[i] = seriesIds.get(sample.sampleKey) as string;
    ts[i] = sample.ts;
    endTs[i] = sample.endTs;
    values[i] = sample.value;
    diastolic[i] = sample.diastolic;
    types[i] = sample.sampleType;
    offsets[i] = sample.timezoneOffset;
    extras[i] = sample.extra;
    if (sample.ts < minTs) minTs = sample.ts;
    if (sample.ts > maxTs) maxTs = sample.ts;
  }
  return {
    params: [
      numberArray(series),
      numberArray(ts),
      numberArray(endTs),
      numberArray(values),
      numberArray(diastolic),
      textArray(types),
      numberArray(offsets),
      textArray(extras),
    ],
    seriesIds: [...new Set(series)],
    minTs,
    maxTs,
  };
}
