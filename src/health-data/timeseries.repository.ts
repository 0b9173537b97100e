import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
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
 * The SQL of `health_timeseries` (monthly range partitions on `ts`; see the migration). Writes
 * are one multi-row upsert per batch from column arrays (`unnest`), never a statement per row.
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
      await this.db.query(`SELECT labflow_health_timeseries_partition($1::date)`, [`${month}-01`]);
      this.partitions.add(month);
    }
  }

  /**
   * Upserts the samples (at most one per key: see lastPerKey): a sample already stored under the
   * same (user, resource, provider, source type, sample key, timestamp) takes the new value.
   * Returns how many rows were new and how many replaced a stored sample: a new row gets the
   * transaction's start time (`now()`) as updated_at, a replaced one the clock time, which is
   * later (`xmax = 0`, the usual test, is not available on a partitioned table).
   */
  async upsert(manager: EntityManager, key: SeriesKey, samples: NormalisedSample[]): Promise<{ inserted: number; updated: number }> {
    if (samples.length === 0) return { inserted: 0, updated: 0 };
    const columns = columnsOf(samples);
    const params = [key.userId, key.resource, key.provider, key.sourceType, ...columns.arrays];
    // Most batches are new data. When the series holds nothing in the batch's time range (one
    // index probe), a plain INSERT stores it: about 1.5x faster in Postgres than the upsert,
    // which pays a speculative insertion per row. A writer that stored some of these keys since
    // the probe makes it fail on the key; then the savepoint undoes it and the upsert runs.
    if (!(await this.anyStored(manager, key, columns))) {
      await manager.query('SAVEPOINT timeseries_insert');
      try {
        await manager.query(`INSERT INTO health_timeseries ${INSERT_COLUMNS} ${SELECT_SAMPLES}`, params);
        await manager.query('RELEASE SAVEPOINT timeseries_insert');
        return { inserted: samples.length, updated: 0 };
      } catch (error) {
        if ((error as { code?: string }).code !== '23505') throw error;
        await manager.query('ROLLBACK TO SAVEPOINT timeseries_insert');
      }
    }
    const [row]: Array<{ inserted: string; total: string }> = await manager.query(
      `WITH upserted AS (
         INSERT INTO health_timeseries AS t ${INSERT_COLUMNS} ${SELECT_SAMPLES}
         ON CONFLICT (user_id, resource, provider, source_type, sample_key, ts) DO UPDATE
           SET end_ts = EXCLUDED.end_ts, value = EXCLUDED.value, diastolic = EXCLUDED.diastolic,
               sample_type = EXCLUDED.sample_type, timezone_offset = EXCLUDED.timezone_offset,
               extra = EXCLUDED.extra, updated_at = clock_timestamp()
         RETURNING t.updated_at = now() AS inserted)
       SELECT count(*) FILTER (WHERE inserted) AS inserted, count(*) AS total FROM upserted`,
      params,
    );
    const inserted = Number(row.inserted);
    return { inserted, updated: Number(row.total) - inserted };
  }

  /** Whether the series stores any sample of these sample keys between the batch's first and last timestamp. */
  private async anyStored(manager: EntityManager, key: SeriesKey, columns: SampleColumns): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM health_timeseries
        WHERE user_id = $1 AND resource = $2 AND provider = $3 AND source_type = $4 AND sample_key = ANY($5::text[])
          AND ts BETWEEN timestamptz 'epoch' + $6::bigint * interval '1 millisecond' AND timestamptz 'epoch' + $7::bigint * interval '1 millisecond'
        LIMIT 1`,
      [key.userId, key.resource, key.provider, key.sourceType, columns.distinctKeys, columns.minTs, columns.maxTs],
    );
    return rows.length > 0;
  }

  /**
   * Samples of one user's resource in [fromMs, toMs], in (provider, source type, sample key,
   * timestamp) order, after `after` when given, at most `limit`; `sampleType` narrows to one
   * sample type (cholesterol/ldl).
   */
  async readRange(
    userId: string,
    resource: string,
    range: { fromMs: number; toMs: number; provider?: string; sampleType?: string },
    after: SeriesPosition | null,
    limit: number,
  ): Promise<StoredSample[]> {
    const params: unknown[] = [userId, resource, range.fromMs, range.toMs, limit];
    let filters = '';
    if (range.provider) {
      params.push(range.provider);
      filters += ` AND provider = $${params.length}`;
    }
    if (range.sampleType) {
      params.push(range.sampleType);
      filters += ` AND sample_type = $${params.length}`;
    }
    if (after) {
      params.push(after.provider, after.sourceType, after.sampleKey, after.ts);
      const p = params.length;
      filters += ` AND (provider, source_type, sample_key, ts) > ($${p - 3}, $${p - 2}, $${p - 1}, timestamptz 'epoch' + $${p}::bigint * interval '1 millisecond')`;
    }
    const rows: Array<Record<string, unknown>> = await this.db.query(
      `SELECT provider, source_type, sample_key,
              (extract(epoch FROM ts) * 1000)::bigint AS ts_ms, (extract(epoch FROM end_ts) * 1000)::bigint AS end_ms,
              value, diastolic, sample_type, timezone_offset, extra
         FROM health_timeseries
        WHERE user_id = $1 AND resource = $2
          AND ts >= timestamptz 'epoch' + $3::bigint * interval '1 millisecond'
          AND ts <= timestamptz 'epoch' + $4::bigint * interval '1 millisecond'${filters}
        ORDER BY provider, source_type, sample_key, ts -- the column (index order), not the epoch alias
        LIMIT $5`,
      params,
    );
    return rows.map((row) => ({
      provider: row.provider as string,
      sourceType: row.source_type as string,
      sampleKey: row.sample_key as string,
      ts: Number(row.ts_ms),
      endTs: row.end_ms === null ? null : Number(row.end_ms),
      value: row.value as number | null,
      diastolic: row.diastolic as number | null,
      sampleType: row.sample_type as string | null,
      timezoneOffset: row.timezone_offset as number | null,
      extra: row.extra as Record<string, unknown> | null,
    }));
  }

  /** Per resource and provider: first and last sample time and count, for introspection. */
  async statistics(userIds: string[], provider?: string): Promise<Array<{ userId: string; resource: string; provider: string; oldest: Date; newest: Date; count: number }>> {
    const rows: Array<Record<string, unknown>> = await this.db.query(
      `SELECT user_id, resource, provider, min(ts) AS oldest, max(ts) AS newest, count(*) AS count
         FROM health_timeseries
        WHERE user_id = ANY($1::uuid[]) AND ($2::text IS NULL OR provider = $2)
        GROUP BY user_id, resource, provider`,
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
      `SELECT labflow_health_timeseries_partition((date_trunc('month', now()) + make_interval(months => m))::date)
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
        WHERE p.relname = 'health_timeseries' AND c.relname ~ '^health_timeseries_p[0-9]{6}$'
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

function quoteIdent(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`Unexpected partition name: ${name}`);
  return `"${name}"`;
}

const INSERT_COLUMNS = '(user_id, resource, provider, source_type, sample_key, ts, end_ts, value, diastolic, sample_type, timezone_offset, extra, updated_at)';
/** The samples as rows, from column arrays $5..$12 ($1..$4: the series key). */
const SELECT_SAMPLES = `SELECT $1::uuid, $2::text, $3::text, $4::text, u.k, timestamptz 'epoch' + u.s * interval '1 millisecond',
         timestamptz 'epoch' + u.e * interval '1 millisecond', u.v, u.d, u.ty, u.tz, u.x, now()
    FROM unnest($5::text[], $6::bigint[], $7::bigint[], $8::float8[], $9::float8[], $10::text[], $11::int[], $12::jsonb[])
         AS u(k, s, e, v, d, ty, tz, x)`;

interface SampleColumns {
  /** sample_key, ts, end_ts, value, diastolic, sample_type, timezone_offset, extra. */
  arrays: unknown[][];
  distinctKeys: string[];
  minTs: number;
  maxTs: number;
}

function columnsOf(samples: NormalisedSample[]): SampleColumns {
  const n = samples.length;
  const sampleKeys = new Array<string>(n);
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
    sampleKeys[i] = sample.sampleKey;
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
  return { arrays: [sampleKeys, ts, endTs, values, diastolic, types, offsets, extras], distinctKeys: [...new Set(sampleKeys)], minTs, maxTs };
}
