import type { DataSource } from 'typeorm';
import type { AggregationPlan, PlanExpr } from '../../src/health-data/aggregation-plan';
import { AggregationRepository } from '../../src/health-data/aggregation.repository';
import type { NormalisedSample } from '../../src/health-data/sample-schemas';
import { TimeseriesRepository } from '../../src/health-data/timeseries.repository';
import { createTeam, createUser, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** AggregationRepository: a plan as one statement over a user's samples or summaries, in a half-open window. */
let db: DataSource;
let repo: AggregationRepository;
let team: Team;
let userId: string;

const sample = (at: string, value: number | null): NormalisedSample => ({
  ts: Date.parse(at),
  endTs: null,
  value,
  diastolic: null,
  sampleType: null,
  timezoneOffset: 0,
  extra: null,
  sampleKey: '',
});

async function store(user: string, resource: string, samples: NormalisedSample[]) {
  const timeseries = new TimeseriesRepository(db);
  await timeseries.ensurePartitions(samples);
  await db.transaction((manager) => timeseries.upsert(manager, { userId: user, resource, provider: 'oura', sourceType: 'ring' }, samples));
}

beforeAll(async () => {
  db = await testDatabase();
  repo = new AggregationRepository(db);
  team = await createTeam(db);
  userId = await createUser(db, team.teamId);
  // Monday 2026-03-02: two-hour buckets 00-02 (60, 70), 02-04 (null, 80, null), and the window's end.
  await store(userId, 'heartrate', [
    sample('2026-03-02T00:00:00Z', 60),
    sample('2026-03-02T01:59:59.999Z', 70),
    sample('2026-03-02T02:00:00Z', null),
    sample('2026-03-02T02:30:00Z', 80),
    sample('2026-03-02T03:00:00Z', null),
    sample('2026-03-02T04:00:00Z', 1000),
  ]);
  await store(userId, 'steps', [sample('2026-03-02T00:30:00Z', 500)]);
  await store(await createUser(db, team.teamId), 'heartrate', [sample('2026-03-02T00:30:00Z', 5)]);
});
afterAll(async () => {
  await dropTeams(db, [team]);
  await db.destroy();
});

const window = { from: new Date('2026-03-02T00:00:00Z'), to: new Date('2026-03-02T04:00:00Z') };
const value = { kind: 'column', column: 'value', type: 'number' } as const;
const aggregate = (func: string): PlanExpr => ({ kind: 'aggregate', func, value }) as PlanExpr;
const heartrate = (select: AggregationPlan['select'], groupBy: PlanExpr[] = []): AggregationPlan => ({
  source: { table: 'timeseries', resource: 'heartrate' },
  select,
  groupBy,
});

it("aggregates the user's samples of the resource in [from, to): the start is in, the end is out", async () => {
  const table = await repo.run(
    userId,
    heartrate([
      { name: 'count', expr: aggregate('count') },
      { name: 'max', expr: aggregate('max') },
      { name: 'mean', expr: aggregate('mean') },
      { name: 'median', expr: aggregate('median') },
    ]),
    window,
  );
  expect(table).toEqual({ count: [3], max: [80], mean: [70], median: [70] });
});

it('buckets by two hours from a Monday origin, in bucket order; oldest and newest skip nulls', async () => {
  const bucket: PlanExpr = { kind: 'date_trunc', unit: 'hour', count: 2 } as PlanExpr;
  const table = await repo.run(
    userId,
    heartrate(
      [
        { name: 'bucket', expr: bucket },
        { name: 'oldest', expr: aggregate('oldest') },
        { name: 'newest', expr: aggregate('newest') },
        { name: 'rows', expr: { kind: 'aggregate', func: 'count', value: { kind: 'index' } } as PlanExpr },
      ],
      [bucket],
    ),
    window,
  );
  expect(table).toEqual({
    bucket: ['2026-03-02T00:00:00.000Z', '2026-03-02T02:00:00.000Z'],
    oldest: [60, 80],
    newest: [70, 80],
    rows: [2, 3],
  });
});

it('weekday counts Monday as 0', async () => {
  const weekday: PlanExpr = { kind: 'date_part', part: 'weekday' } as PlanExpr;
  expect(
    await repo.run(
      userId,
      heartrate(
        [
          { name: 'weekday', expr: weekday },
          { name: 'n', expr: aggregate('count') },
        ],
        [weekday],
      ),
      window,
    ),
  ).toEqual({ weekday: [0], n: [3] });
});

it('reads sleep by its bedtime start, whatever day it is filed under; a field that is not a number reads as null', async () => {
  const sleeper = await createUser(db, team.teamId);
  const night = (id: string, day: string, start: string, score: unknown) =>
    db.query(`INSERT INTO health_summaries (id, user_id, type, provider, source_type, day, data) VALUES ($1, $2, 'sleep', 'oura', 'ring', $3, $4)`, [
      id,
      sleeper,
      day,
      JSON.stringify({ bedtime_start: start, score }),
    ]);
  await night('00000000-0000-4000-8000-000000000001', '2026-03-03', '2026-03-02T23:00:00Z', 80);
  await night('00000000-0000-4000-8000-000000000002', '2026-03-04', '2026-03-03T22:00:00Z', 'n/a');
  await night('00000000-0000-4000-8000-000000000003', '2026-03-05', '2026-03-05T01:00:00Z', 90);
  const plan: AggregationPlan = {
    source: { table: 'sleep' },
    select: [
      { name: 'nights', expr: { kind: 'aggregate', func: 'count', value: { kind: 'index' } } as PlanExpr },
      { name: 'scores', expr: { kind: 'aggregate', func: 'count', value: { kind: 'data', field: 'score', type: 'number' } } as PlanExpr },
      { name: 'mean', expr: { kind: 'aggregate', func: 'mean', value: { kind: 'data', field: 'score', type: 'number' } } as PlanExpr },
    ],
    groupBy: [],
  };
  expect(await repo.run(sleeper, plan, { from: new Date('2026-03-02T12:00:00Z'), to: new Date('2026-03-05T00:00:00Z') })).toEqual({
    nights: [2],
    scores: [1],
    mean: [80],
  });
});

it('refuses a summary field that is not a plain name', async () => {
  const plan: AggregationPlan = {
    source: { table: 'activity' },
    select: [{ name: 'x', expr: { kind: 'value', value: { kind: 'data', field: "steps' OR 1=1 --", type: 'text' } } as PlanExpr }],
    groupBy: [],
  };
  await expect(repo.run(userId, plan, window)).rejects.toThrow(/not a summary field/);
});
