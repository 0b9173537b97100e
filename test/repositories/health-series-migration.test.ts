import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '../../src/db/data-source';
import { createScratchDatabase } from '../helpers/scratch-database';

/**
 * Migration 1763790180000 (health_timeseries → health_series + health_samples) on a database
 * that holds samples in the old layout: every sample of a live user moves, with its identity and
 * values; samples of users erased before (the old table had no foreign key) are left behind; and
 * the way back restores the old table.
 */
describe('health series migration', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let url: string;
  let db: DataSource;

  beforeAll(async () => {
    scratch = await createScratchDatabase('labflow_series_migration');
    url = scratch.url;
  });

  afterAll(async () => {
    if (db?.isInitialized) await db.destroy();
    await scratch?.drop();
  });

  it("moves every live user's samples into series, and back on revert", async () => {
    const index = MIGRATIONS.findIndex((migration) => migration.name === 'HealthSeries1763790180000');
    expect(index).toBeGreaterThan(0);
    const before = new DataSource({ ...dataSourceOptions(url, 2), migrations: MIGRATIONS.slice(0, index) });
    await before.initialize();
    await before.runMigrations();
    const org = randomUUID();
    const team = randomUUID();
    const user = randomUUID();
    await before.query(`INSERT INTO orgs (id, name, plan) VALUES ($1, 'm', 'scale')`, [org]);
    await before.query(`INSERT INTO teams (id, org_id, name, region) VALUES ($1, $2, 'm', 'us')`, [team, org]);
    await before.query(`INSERT INTO users (id, team_id, environment, client_user_id) VALUES ($1, $2, 'sandbox', 'm-1')`, [user, team]);
    await before.query(`SELECT labflow_health_timeseries_partition('2019-03-01')`);
    await before.query(
      `INSERT INTO health_timeseries (user_id, resource, provider, source_type, sample_key, ts, end_ts, value, sample_type, timezone_offset, extra)
       VALUES ($1, 'heartrate', 'oura', 'ring', '', '2019-03-10T08:00:00Z', NULL, 61, NULL, 3600, NULL),
              ($1, 'heartrate', 'oura', 'ring', '', '2019-03-10T08:01:00Z', NULL, 62, NULL, 3600, NULL),
              ($1, 'cholesterol', 'manual', 'manual_scan', 'ldl', '2026-11-20T08:00:00Z', NULL, 120, 'ldl', 0, NULL),
              ($1, 'cholesterol', 'manual', 'manual_scan', 'hdl', '2026-11-20T08:00:00Z', NULL, 50, 'hdl', 0, '{"note": "x"}'),
              ($2, 'heartrate', 'oura', 'ring', '', '2026-11-20T08:00:00Z', NULL, 70, NULL, 0, NULL)`,
      [user, randomUUID()],
    );
    await before.destroy();

    // Up to this migration, so undoLastMigration below reverts this one.
    db = new DataSource({ ...dataSourceOptions(url, 2), migrations: MIGRATIONS.slice(0, index + 1) });
    await db.initialize();
    await db.runMigrations();
    const moved: Array<Record<string, unknown>> = await db.query(
      `SELECT s.user_id, s.resource, s.provider, s.source_type, s.sample_key, t.ts, t.value, t.sample_type, t.timezone_offset, t.extra
         FROM health_samples t JOIN health_series s ON s.id = t.series_id ORDER BY s.resource, s.sample_key, t.ts`,
    );
    expect(moved).toEqual([
      {
        user_id: user,
        resource: 'cholesterol',
        provider: 'manual',
        source_type: 'manual_scan',
        sample_key: 'hdl',
        ts: new Date('2026-11-20T08:00:00Z'),
        value: 50,
        sample_type: 'hdl',
        timezone_offset: 0,
        extra: { note: 'x' },
      },
      {
        user_id: user,
        resource: 'cholesterol',
        provider: 'manual',
        source_type: 'manual_scan',
        sample_key: 'ldl',
        ts: new Date('2026-11-20T08:00:00Z'),
        value: 120,
        sample_type: 'ldl',
        timezone_offset: 0,
        extra: null,
      },
      {
        user_id: user,
        resource: 'heartrate',
        provider: 'oura',
        source_type: 'ring',
        sample_key: '',
        ts: new Date('2019-03-10T08:00:00Z'),
        value: 61,
        sample_type: null,
        timezone_offset: 3600,
        extra: null,
      },
      {
        user_id: user,
        resource: 'heartrate',
        provider: 'oura',
        source_type: 'ring',
        sample_key: '',
        ts: new Date('2019-03-10T08:01:00Z'),
        value: 62,
        sample_type: null,
        timezone_offset: 3600,
        extra: null,
      },
    ]);
    // The old months' partitions came along; the old table is gone.
    expect(await regclass('health_samples_p201903')).toBe(true);
    expect(await regclass('health_timeseries')).toBe(false);

    // Erasing the user takes its series and their samples.
    await db.query(`DELETE FROM users WHERE id = $1`, [user]);
    expect(await db.query(`SELECT count(*)::int AS n FROM health_samples`)).toEqual([{ n: 0 }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM health_series`)).toEqual([{ n: 0 }]);

    // The way back: the old table again, with what the new one holds.
    const again = randomUUID();
    await db.query(`INSERT INTO users (id, team_id, environment, client_user_id) VALUES ($1, $2, 'sandbox', 'm-2')`, [again, team]);
    const [{ id: series }] = await db.query(
      `INSERT INTO health_series (user_id, resource, provider, source_type) VALUES ($1, 'steps', 'fitbit', 'watch') RETURNING id`,
      [again],
    );
    await db.query(
      `INSERT INTO health_samples (series_id, ts, end_ts, value, timezone_offset) VALUES ($1, '2019-03-11T00:00:00Z', '2019-03-11T00:15:00Z', 300, 0)`,
      [series],
    );
    await db.undoLastMigration();
    expect(await db.query(`SELECT user_id, resource, provider, source_type, sample_key, ts, end_ts, value FROM health_timeseries`)).toEqual([
      {
        user_id: again,
        resource: 'steps',
        provider: 'fitbit',
        source_type: 'watch',
        sample_key: '',
        ts: new Date('2019-03-11T00:00:00Z'),
        end_ts: new Date('2019-03-11T00:15:00Z'),
        value: 300,
      },
    ]);
    expect(await regclass('health_samples')).toBe(false);
  });

  async function regclass(name: string): Promise<boolean> {
    const [{ found }] = await db.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [name]);
    return found;
  }
});
