import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Health data (src/health-data): timeseries samples and summaries.
 *
 * - `health_timeseries`: one row per sample, keyed as Junction keys them — (user, resource,
 *   provider, source type, timestamp), plus `sample_key` for resources whose sample type is part
 *   of the identity (cholesterol ldl/hdl at one instant). Declaratively partitioned by month on
 *   `ts` (range), so retention drops a month in O(1) and each partition's primary-key index stays
 *   small; measured against an unpartitioned table with a BRIN index in bench/health-data.
 *   Partitions are made by `labflow_health_timeseries_partition(month)` — ahead of time for the
 *   coming months by this migration, and on ingestion for any month a batch touches (the
 *   repository remembers which exist). No foreign key to users (a per-row check would cost
 *   ingestion); `users_erase_health_timeseries` deletes a user's samples when the user row goes.
 * - `health_summaries`: the latest version of each summary (activity, sleep, workouts, ...),
 *   `id` stable per (user, type, provider, natural key) unless the sender gives one.
 */
export class HealthData1763790009000 implements MigrationInterface {
  name = 'HealthData1763790009000';

  async up(db: QueryRunner): Promise<void> {
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
        -- Two ingestions touching a new month at once: one creates, the other waits and finds it.
        PERFORM pg_advisory_xact_lock(hashtext('labflow_health_timeseries_partition'));
        IF to_regclass(name) IS NULL THEN
          EXECUTE format('CREATE TABLE %I PARTITION OF health_timeseries FOR VALUES FROM (%L) TO (%L)',
                         name, first::text || ' 00:00:00+00', (first + interval '1 month')::date::text || ' 00:00:00+00');
        END IF;
        RETURN name;
      END $$`);
    await db.query(`
      SELECT labflow_health_timeseries_partition((date_trunc('month', now()) + make_interval(months => m))::date)
        FROM generate_series(-1, 3) AS m`);
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

    await db.query(`
      CREATE TABLE health_summaries (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        type text NOT NULL,
        provider text NOT NULL,
        source_type text NOT NULL,
        day date,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX health_summaries_user_type_day ON health_summaries (user_id, type, day)`);

    await db.query(`
      CREATE TABLE health_workout_streams (
        workout_id uuid PRIMARY KEY REFERENCES health_summaries(id) ON DELETE CASCADE,
        stream jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE health_workout_streams`);
    await db.query(`DROP TABLE health_summaries`);
    await db.query(`DROP TRIGGER users_erase_health_timeseries ON users`);
    await db.query(`DROP FUNCTION labflow_erase_health_timeseries()`);
    await db.query(`DROP TABLE health_timeseries`);
    await db.query(`DROP FUNCTION labflow_health_timeseries_partition(date)`);
  }
}
