import type { DataSource } from 'typeorm';
import type { NormalisedSample } from '../../src/health-data/sample-schemas';
import { type SeriesKey, type SeriesPosition, TimeseriesRepository } from '../../src/health-data/timeseries.repository';
import { createTeam, createUser, migratedScratchDatabase } from '../helpers/repository-db';

/**
 * TimeseriesRepository on a database of this file's own: retention drops whole monthly
 * partitions of health_samples, which every user's samples share.
 */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: TimeseriesRepository;
let teamId: string;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_timeseries');
  db = scratch.db;
  repo = new TimeseriesRepository(db);
  ({ teamId } = await createTeam(db));
});
afterAll(() => scratch?.drop());

const sample = (at: string, value: number, fields: Partial<NormalisedSample> = {}): NormalisedSample => ({
  ts: Date.parse(at),
  endTs: null,
  value,
  diastolic: null,
  sampleType: null,
  timezoneOffset: 0,
  extra: null,
  sampleKey: '',
  ...fields,
});
const heartrate = (userId: string, provider = 'oura'): SeriesKey => ({ userId, resource: 'heartrate', provider, sourceType: 'ring' });

async function store(key: SeriesKey, samples: NormalisedSample[]) {
  await repo.ensurePartitions(samples);
  return db.transaction((manager) => repo.upsert(manager, key, samples));
}

/** The partitions of health_samples, by name. */
async function partitions(): Promise<string[]> {
  const rows: Array<{ name: string }> = await db.query(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relname = 'health_samples' ORDER BY 1`,
  );
  return rows.map((row) => row.name);
}

/** Which partition holds each of the user's samples, by timestamp. */
async function placement(userId: string): Promise<Array<[string, string]>> {
  const rows: Array<{ ts: Date; partition: string }> = await db.query(
    `SELECT t.ts, t.tableoid::regclass::text AS partition FROM health_samples t JOIN health_series s ON s.id = t.series_id
      WHERE s.user_id = $1 ORDER BY t.ts`,
    [userId],
  );
  return rows.map((row) => [row.ts.toISOString(), row.partition]);
}

describe('partitions', () => {
  it('makes one partition per month a batch spans, and each sample lands in its month', async () => {
    const userId = await createUser(db, teamId);
    const batch = [sample('2021-01-31T23:59:59.999Z', 1), sample('2021-02-14T00:00:00Z', 2), sample('2021-04-01T00:00:00Z', 3)];
    expect(await store(heartrate(userId), batch)).toEqual({ inserted: 3, updated: 0 });
    expect(await partitions()).toEqual(
      expect.arrayContaining(['health_samples_p202101', 'health_samples_p202102', 'health_samples_p202103', 'health_samples_p202104']),
    );
    expect(await placement(userId)).toEqual([
      ['2021-01-31T23:59:59.999Z', 'health_samples_p202101'],
      ['2021-02-14T00:00:00.000Z', 'health_samples_p202102'],
      ['2021-04-01T00:00:00.000Z', 'health_samples_p202104'],
    ]);
  });

  it('refuses a sample of a month without a partition (nothing catches it by default)', async () => {
    const userId = await createUser(db, teamId);
    await expect(db.transaction((manager) => repo.upsert(manager, heartrate(userId), [sample('2003-05-01T00:00:00Z', 1)]))).rejects.toThrow(/partition/);
  });

  it('makes the current month and the months ahead, again without harm', async () => {
    await repo.createPartitionsAhead(2);
    await repo.createPartitionsAhead(2);
    const now = new Date();
    const month = (ahead: number) => {
      const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + ahead, 1));
      return `health_samples_p${at.toISOString().slice(0, 4)}${at.toISOString().slice(5, 7)}`;
    };
    expect(await partitions()).toEqual(expect.arrayContaining([month(0), month(1), month(2)]));
  });

  it('retention drops whole months that end by the cutoff, the month holding it stays, and a later write makes it again', async () => {
    const userId = await createUser(db, teamId);
    await store(heartrate(userId), [sample('2018-01-10T00:00:00Z', 1), sample('2018-02-10T00:00:00Z', 2), sample('2018-03-10T00:00:00Z', 3)]);

    expect((await repo.dropPartitionsBefore(new Date('2018-02-15T00:00:00Z'))).sort()).toEqual(['health_samples_p201801']);
    expect(await placement(userId)).toEqual([
      ['2018-02-10T00:00:00.000Z', 'health_samples_p201802'],
      ['2018-03-10T00:00:00.000Z', 'health_samples_p201803'],
    ]);
    // Exactly at a month's end: that month goes too.
    expect(await repo.dropPartitionsBefore(new Date('2018-03-01T00:00:00Z'))).toEqual(['health_samples_p201802']);
    expect(await repo.dropPartitionsBefore(new Date('2018-03-01T00:00:00Z'))).toEqual([]);

    // The process forgot the dropped month: a late sample of it gets its partition again.
    expect(await store(heartrate(userId), [sample('2018-01-20T00:00:00Z', 4)])).toEqual({ inserted: 1, updated: 0 });
    expect((await placement(userId))[0]).toEqual(['2018-01-20T00:00:00.000Z', 'health_samples_p201801']);
  });
});

describe('upsert', () => {
  it('the same keys twice: the second write replaces the values and counts them as updated', async () => {
    const userId = await createUser(db, teamId);
    await store(heartrate(userId), [sample('2021-02-01T00:00:00Z', 60), sample('2021-02-01T00:01:00Z', 61)]);
    expect(await store(heartrate(userId), [sample('2021-02-01T00:01:00Z', 71), sample('2021-02-01T00:02:00Z', 72)])).toEqual({ inserted: 1, updated: 1 });
    const read = await repo.readRange(userId, 'heartrate', { fromMs: 0, toMs: Date.parse('2030-01-01') }, null, 10);
    expect(read.map((item) => item.value)).toEqual([60, 71, 72]);
    expect(await db.query(`SELECT count(*)::int AS n FROM health_series WHERE user_id = $1`, [userId])).toEqual([{ n: 1 }]);
  });

  it('two connections writing the same new series at once: one series, every sample once, the later values win', async () => {
    const userId = await createUser(db, teamId);
    const first = [sample('2021-02-03T00:00:00Z', 1), sample('2021-02-03T00:01:00Z', 2)];
    const second = [sample('2021-02-03T00:00:00Z', 11), sample('2021-02-03T00:01:00Z', 12), sample('2021-02-03T00:02:00Z', 13)];
    await repo.ensurePartitions(second);
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    expect(await repo.upsert(runner.manager, heartrate(userId), first)).toEqual({ inserted: 2, updated: 0 });
    // The second writer now waits on the first one's new series row.
    const racing = db.transaction((manager) => repo.upsert(manager, heartrate(userId), second));
    for (let waiting = 0; waiting < 1;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      [{ waiting }] = await db.query(`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    }
    await runner.commitTransaction();
    await runner.release();
    expect(await racing).toEqual({ inserted: 1, updated: 2 });
    expect(await db.query(`SELECT count(*)::int AS n FROM health_series WHERE user_id = $1`, [userId])).toEqual([{ n: 1 }]);
    const read = await repo.readRange(userId, 'heartrate', { fromMs: 0, toMs: Date.parse('2030-01-01') }, null, 10);
    expect(read.map((item) => item.value)).toEqual([11, 12, 13]);
  });
});

describe('readRange', () => {
  let userId: string;
  beforeAll(async () => {
    userId = await createUser(db, teamId);
    const at = ['2021-03-01T00:00:00Z', '2021-03-01T00:01:00Z', '2021-03-01T00:02:00Z'];
    // The same timestamps in three series (two sample keys of one provider, one of another).
    await store({ userId, resource: 'cholesterol', provider: 'oura', sourceType: 'lab' }, [
      ...at.map((ts, i) => sample(ts, 100 + i, { sampleKey: 'ldl', sampleType: 'ldl' })),
      ...at.map((ts, i) => sample(ts, 200 + i, { sampleKey: 'hdl', sampleType: 'hdl' })),
    ]);
    await store(
      { userId, resource: 'cholesterol', provider: 'dexcom', sourceType: 'lab' },
      at.map((ts, i) => sample(ts, 300 + i, { sampleKey: 'ldl', sampleType: 'ldl' })),
    );
  });
  const range = { fromMs: Date.parse('2021-03-01T00:00:00Z'), toMs: Date.parse('2021-03-01T00:02:00Z') };

  /** Every page of `size`, as `provider/key/value` per sample, and the number of reads it took. */
  async function pages(size: number, filters: { provider?: string; sampleType?: string } = {}) {
    const seen: string[] = [];
    let after: SeriesPosition | null = null;
    let reads = 0;
    for (;;) {
      const page = await repo.readRange(userId, 'cholesterol', { ...range, ...filters }, after, size);
      reads++;
      seen.push(...page.map((item) => `${item.provider}/${item.sampleKey}/${item.value}`));
      if (page.length < size) break;
      const last = page[page.length - 1];
      after = { provider: last.provider, sourceType: last.sourceType, sampleKey: last.sampleKey, ts: last.ts };
    }
    return { seen, reads };
  }

  it('pages across series whose timestamps tie, in (provider, source, key, time) order, both ends inclusive', async () => {
    const all = [
      'dexcom/ldl/300',
      'dexcom/ldl/301',
      'dexcom/ldl/302',
      'oura/hdl/200',
      'oura/hdl/201',
      'oura/hdl/202',
      'oura/ldl/100',
      'oura/ldl/101',
      'oura/ldl/102',
    ];
    expect(await pages(100)).toEqual({ seen: all, reads: 1 });
    expect(await pages(2)).toEqual({ seen: all, reads: 5 });
    // A last page exactly full: the next read is empty.
    expect(await pages(3)).toEqual({ seen: all, reads: 4 });
  });

  it('narrows to a provider and to a sample type, and pages within them', async () => {
    expect((await pages(2, { provider: 'oura', sampleType: 'ldl' })).seen).toEqual(['oura/ldl/100', 'oura/ldl/101', 'oura/ldl/102']);
    expect((await pages(1, { sampleType: 'hdl' })).seen).toEqual(['oura/hdl/200', 'oura/hdl/201', 'oura/hdl/202']);
  });

  it("answers nothing for another resource or another user's range", async () => {
    const other = await createUser(db, teamId);
    expect(await repo.readRange(other, 'cholesterol', range, null, 10)).toEqual([]);
    expect(await repo.readRange(userId, 'heartrate', range, null, 10)).toEqual([]);
  });

  it('statistics count per resource and provider, narrowed by provider', async () => {
    const stats = await repo.statistics([userId]);
    expect(stats.map((row) => [row.resource, row.provider, row.count, row.oldest.toISOString(), row.newest.toISOString()]).sort()).toEqual([
      ['cholesterol', 'dexcom', 3, '2021-03-01T00:00:00.000Z', '2021-03-01T00:02:00.000Z'],
      ['cholesterol', 'oura', 6, '2021-03-01T00:00:00.000Z', '2021-03-01T00:02:00.000Z'],
    ]);
    expect((await repo.statistics([userId], 'dexcom')).map((row) => row.provider)).toEqual(['dexcom']);
  });
});
