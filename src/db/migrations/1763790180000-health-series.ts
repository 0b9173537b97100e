import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Timeseries storage keyed by a series id (src/health-data/timeseries.repository.ts).
 *
 * `health_timeseries` repeated a sample's identity — user, resource, provider, source type and
 * sample key — in every row and in a six-column text primary key; maintaining that key was about
 * a third of the cost of storing a sample. Now:
 *
 * - `health_series`: one row per (user, resource, provider, source type, sample key), with a
 *   bigint id; it goes with its user (foreign key, ON DELETE CASCADE).
 * - `health_samples`: one row per sample, keyed by (series_id, ts): 16 bytes of key instead of
 *   roughly 80. Partitioned by month on `ts`, as `health_timeseries` was (`health_samples_pYYYYMM`, made by
 *   `labflow_health_samples_partition(month)`), so retention still drops a month in O(1). No
 *   foreign key to the series (a per-row check would cost ingestion): deleting a series deletes
 *   its samples (trigger), and an ingestion holds its series with FOR KEY SHARE, so a user being
 *   erased waits for it and then takes its samples too.
 *
 * Existing samples are copied over, month by month, and the old table and its functions dropped.
 */
export class HealthSeries1763790180000 implements MigrationInterface {
  name = 'HealthSeries1763790180000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE health_series (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        resource text NOT NULL,
        provider text NOT NULL,
        source_type text NOT NULL,
        sample_key text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (user_id, resource, provider, source_type, sample_key)
      )`);
    await db.query(`
      CREATE TABLE health_samples (
        series_id bigint NOT NULL,
        ts timestamptz NOT NULL,
        end_ts timestamptz,
        value double precision,
        diastolic double precision,
        sample_type text,
        timezone_offset integer,
        extra jsonb,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (series_id, ts)
      ) PARTITION BY RANGE (ts)`);
    await db.query(`
      CREATE FUNCTION labflow_health_samples_partition(month date) RETURNS text
      LANGUAGE plpgsql AS $$
      DECLARE
        first date := date_trunc('month', month)::date;
        name text := 'health_samples_p' || to_char(first, 'YYYYMM');
      BEGIN
        -- Two ingestions touching a new month at once: one creates, the other waits and finds it.
        PERFORM pg_advisory_xact_lock(hashtext('labflow_health_samples_partition'));
        IF to_regclass(name) IS NULL THEN
          EXECUTE format('CREATE TABLE %I PARTITION OF health_samples FOR VALUES FROM (%L) TO (%L)',
                         name, first::text || ' 00:00:00+00', (first + interval '1 month')::date::text || ' 00:00:00+00');
        END IF;
        RETURN name;
      END $$`);
    await db.query(`
      CREATE FUNCTION labflow_erase_health_samples() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM health_samples WHERE series_id = OLD.id;
        RETURN OLD;
      END $$`);
    await db.query(`
      CREATE TRIGGER health_series_erase_samples AFTER DELETE ON health_series
        FOR EACH ROW EXECUTE FUNCTION labflow_erase_health_samples()`);

    // The months that hold samples (the old partitions) and the usual ones around now.
    await db.query(`
      SELECT labflow_health_samples_partition(month)
        FROM (SELECT to_date(substring(c.relname FROM '[0-9]{6}$'), 'YYYYMM') AS month
                FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
               WHERE p.relname = 'health_timeseries' AND c.relname ~ '^health_timeseries_p[0-9]{6}$'
              UNION
              SELECT (date_trunc('month', now()) + make_interval(months => m))::date FROM generate_series(-1, 3) AS m) months`);
    // Samples of users already erased (the old table had no foreign key) are left behind.
    await db.query(`
      INSERT INTO health_series (user_id, resource, provider, source_type, sample_key)
      SELECT DISTINCT t.user_id, t.resource, t.provider, t.source_type, t.sample_key
        FROM health_timeseries t JOIN users u ON u.id = t.user_id`);
    await db.query(`
      INSERT INTO health_samples (series_id, ts, end_ts, value, diastolic, sample_type, timezone_offset, extra, updated_at)
      SELECT s.id, t.ts, t.end_ts, t.value, t.diastolic, t.sample_type, t.timezone_offset, t.extra, t.updated_at
        FROM health_timeseries t
        JOIN health_series s USING (user_id, resource, provider, source_type, sample_key)`);

    await db.query(`DROP TRIGGER users_erase_health_timeseries ON users`);
    await db.query(`DROP FUNCTION labflow_erase_health_timeseries()`);
    await db.query(`DROP TABLE health_timeseries`);
    await db.query(`DROP FUNCTION labflow_health_timeseries_partition(date)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE health_timeseries (
        user_id uuid NOT NULL,
        resource text NOT NULL,
        provider text NOT NULL,
        source_type text NOT NULL,
        sample_key text NOT NULL DEFAULT '',
        ts timestamptz NOT NULL,
        end_ts timestamptz,
        value double precision,
        diastolic double precision,
        sample_type text,
        timezone_offset integer,
        extra jsonb,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (user_id, resource, provider, source_type, sample_key, ts)
      ) PARTITION BY RANGE (ts)`);
    await db.query(`
      CREATE FUNCTION labflow_health_timeseries_partition(month date) RETURNS text
      LANGUAGE plpgsql AS $$
      DECLARE
        first date := date_trunc('month', month)::date;
        name text := 'health_timeseries_p' || to_char(first, 'YYYYMM');
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('labflow_health_timeseries_partition'));
        IF to_regclass(name) IS NULL THEN
          EXECUTE format('CREATE TABLE %I PARTITION OF health_timeseries FOR VALUES FROM (%L) TO (%L)',
                         name, first::text || ' 00:00:00+00', (first + interval '1 month')::date::text || ' 00:00:00+00');
        END IF;
        RETURN name;
      END $$`);
    await db.query(`
      SELECT labflow_health_timeseries_partition(to_date(substring(c.relname FROM '[0-9]{6}$'), 'YYYYMM'))
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       WHERE p.relname = 'health_samples' AND c.relname ~ '^health_samples_p[0-9]{6}$'`);
    await db.query(`
      INSERT INTO health_timeseries (user_id, resource, provider, source_type, sample_key, ts, end_ts, value, diastolic,
                                     sample_type, timezone_offset, extra, updated_at)
      SELECT s.user_id, s.resource, s.provider, s.source_type, s.sample_key, t.ts, t.end_ts, t.value, t.diastolic,
             t.sample_type, t.timezone_offset, t.extra, t.updated_at
        FROM health_samples t JOIN health_series s ON s.id = t.series_id`);
    await db.query(`
      CREATE FUNCTION labflow_erase_health_timeseries() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM health_timeseries WHERE user_id = OLD.id;
        RETURN OLD;
      END $$`);
    await db.query(`
      CREATE TRIGGER users_erase_health_timeseries AFTER DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION labflow_erase_health_timeseries()`);
    await db.query(`DROP TABLE health_samples`);
    await db.query(`DROP TABLE health_series`);
    await db.query(`DROP FUNCTION labflow_erase_health_samples()`);
    await db.query(`DROP FUNCTION labflow_health_samples_partition(date)`);
  }
}
