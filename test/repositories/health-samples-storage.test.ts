import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import type { NormalisedSample } from '../../src/health-data/sample-schemas';
import { type SeriesKey, TimeseriesRepository } from '../../src/health-data/timeseries.repository';

/**
 * The two ways TimeseriesRepository.upsert writes samples: new data by binary COPY, and the
 * upsert (INSERT from unnest ... ON CONFLICT) for data that may replace stored samples. Both must
 * store the same rows, and a COPY that meets a key stored since the probe must fall back to the
 * upsert with nothing of it left behind.
 */
describe('health samples storage', () => {
  let db: DataSource;
  let repository: TimeseriesRepository;
  const orgId = randomUUID();
  const teamId = randomUUID();
  const T0 = Date.parse('2026-11-20T08:00:00Z');

  const sample = (minute: number, fields: Partial<NormalisedSample> = {}): NormalisedSample => ({
    ts: T0 + minute * 60_000,
    endTs: null,
    value: 60 + minute,
    diastolic: null,
    sampleType: null,
    timezoneOffset: 0,
    extra: null,
    sampleKey: '',
    ...fields,
  });
  // Every column in use, and values whose text and binary forms could part: -0, fractions,
  // large and tiny doubles, non-ASCII text, JSON with escapes, negative offsets, end times.
  const batch = (): NormalisedSample[] => [
    sample(0),
    sample(1, { value: -0 }),
    sample(2, { value: 0.1 + 0.2, timezoneOffset: -18_000 }),
    sample(3, { value: 1.7976931348623157e308, endTs: T0 + 3 * 60_000 + 999 }),
    sample(4, { value: 5e-324, timezoneOffset: 64_800 }),
    sample(5, { value: null, diastolic: 80.5, sampleType: 'ldl', sampleKey: 'ldl' }),
    sample(5, { value: 120, diastolic: -0, sampleType: 'hdl \u00B0C "x"', sampleKey: 'hdl \u00B0C "x"' }),
    sample(6, { value: null, extra: JSON.stringify({ value: 'felt \u00e9 "fine"\n', tags: ['food'] }) }),
    sample(7, { ts: T0 + 7 * 60_000 + 123, endTs: T0 + 8 * 60_000, sampleType: 'automatic' }),
  ];

  const createUser = async () => {
    const id = randomUUID();
    await db.query(`INSERT INTO users (id, team_id, environment, client_user_id) VALUES ($1, $2, 'sandbox', $3)`, [id, teamId, `storage-${id}`]);
    return id;
  };
  const keyOf = (userId: string): SeriesKey => ({ userId, resource: 'heartrate', provider: 'oura', sourceType: 'ring' });
  /** The user's stored samples, in a form independent of series ids; updated_at as "now" when it is the writing transaction's start. */
  const stored = (userId: string) =>
    db.query(
      `SELECT s.sample_key, t.ts, t.end_ts, t.value, t.diastolic, t.sample_type, t.timezone_offset, t.extra,
              t.value::text AS value_text, t.diastolic::text AS diastolic_text
         FROM health_series s JOIN health_samples t ON t.series_id = s.id
        WHERE s.user_id = $1 ORDER BY s.sample_key, t.ts`,
      [userId],
    );
  /** Upserts in a transaction; answers the counts and whether every row written has the transaction's now() as updated_at. */
  const upsert = (userId: string, samples: NormalisedSample[]) =>
    db.transaction(async (manager) => {
      const result = await repository.upsert(manager, keyOf(userId), samples);
      const [{ stale }] = await manager.query(
        `SELECT count(*)::int AS stale FROM health_samples t JOIN health_series s ON s.id = t.series_id
          WHERE s.user_id = $1 AND t.ts = ANY($2::timestamptz[]) AND t.updated_at <> now()`,
        [userId, samples.map((item) => new Date(item.ts).toISOString())],
      );
      return { result, stale };
    });

  beforeAll(async () => {
    db = createDataSource(process.env.DATABASE_URL as string, 4);
    await db.initialize();
    repository = new TimeseriesRepository(db);
    await db.query(`INSERT INTO orgs (id, name, plan) VALUES ($1, 'storage', 'scale')`, [orgId]);
    await db.query(`INSERT INTO teams (id, org_id, name, region) VALUES ($1, $2, 'storage', 'us')`, [teamId, orgId]);
    await repository.ensurePartitions(batch());
  });

  afterAll(async () => {
    await db.query(`DELETE FROM users WHERE team_id = $1`, [teamId]);
    await db.query(`DELETE FROM teams WHERE id = $1`, [teamId]);
    await db.query(`DELETE FROM orgs WHERE id = $1`, [orgId]);
    await db.destroy();
  });

  // A batch of every kind of value, and a plain one (most columns null, so left out of the COPY).
  it.each([
    ['every column in use', batch],
    ['plain heart rate', () => Array.from({ length: 50 }, (_, minute) => sample(minute, { timezoneOffset: 3600 }))],
  ])('stores the same rows by COPY as by the upsert: %s', async (_name, make) => {
    const copied = await createUser();
    expect(await upsert(copied, make())).toEqual({ result: { inserted: make().length, updated: 0 }, stale: 0 });

    // The same batch through the upsert: its series exist (made by an earlier sample far away)
    // and the probe is told the range holds data.
    const upserted = await createUser();
    const series = make().map((item) => ({ ...sample(-600), sampleKey: item.sampleKey, sampleType: item.sampleType }));
    await upsert(upserted, [...new Map(series.map((item) => [item.sampleKey, item])).values()]);
    await db.query(`DELETE FROM health_samples WHERE series_id IN (SELECT id FROM health_series WHERE user_id = $1)`, [upserted]);
    const probe = jest.spyOn(repository as unknown as { anyStored(): Promise<boolean> }, 'anyStored').mockResolvedValue(true);
    try {
      expect(await upsert(upserted, make())).toEqual({ result: { inserted: make().length, updated: 0 }, stale: 0 });
    } finally {
      probe.mockRestore();
    }

    const rows = await stored(copied);
    expect(rows).toHaveLength(make().length);
    expect(rows).toEqual(await stored(upserted));
    if (make === batch) expect(rows.find((row: { ts: Date }) => row.ts.getTime() === T0 + 60_000)).toMatchObject({ value: 0, value_text: '0' });
  });

  it('falls back to the upsert when the COPY meets a key stored since the probe, leaving nothing of the COPY', async () => {
    const userId = await createUser();
    await upsert(userId, [sample(0), sample(2)]);
    const probe = jest.spyOn(repository as unknown as { anyStored(): Promise<boolean> }, 'anyStored').mockResolvedValue(false);
    try {
      const again = batch().map((item) => ({ ...item, value: item.value === null ? null : item.value + 1 }));
      expect((await upsert(userId, again)).result).toEqual({ inserted: 7, updated: 2 });
    } finally {
      probe.mockRestore();
    }
    const rows = await stored(userId);
    expect(rows).toHaveLength(9);
    expect(rows.filter((row: { sample_key: string }) => row.sample_key === '').map((row: { value: number | null }) => row.value)).toEqual([
      61,
      1,
      0.1 + 0.2 + 1,
      1.7976931348623157e308,
      1,
      null,
      68,
    ]);
  });

  it('answers null when the user is gone', async () => {
    expect(await db.transaction((manager) => repository.upsert(manager, keyOf(randomUUID()), [sample(0)]))).toBeNull();
  });
});
