import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type SummaryWrite, SummariesRepository } from '../../src/health-data/summaries.repository';
import { createTeam, createUser, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** SummariesRepository: summaries upserted by id (never across users), read by day. */
let db: DataSource;
let repo: SummariesRepository;
let team: Team;

beforeAll(async () => {
  db = await testDatabase();
  repo = new SummariesRepository(db);
  team = await createTeam(db);
});
afterAll(async () => {
  await dropTeams(db, [team]);
  await db.destroy();
});

const summary = (userId: string, fields: Partial<SummaryWrite> = {}): SummaryWrite => ({
  id: randomUUID(),
  userId,
  type: 'sleep',
  provider: 'oura',
  sourceType: 'ring',
  day: '2026-03-01',
  data: { score: 80 },
  ...fields,
});
const upsert = (rows: SummaryWrite[]) => db.transaction((manager) => repo.upsert(manager, rows));

it('a summary written again under its id replaces the first, counted as not inserted', async () => {
  const userId = await createUser(db, team.teamId);
  const first = summary(userId);
  expect((await upsert([first])).stored.map((row) => row.inserted)).toEqual([true]);
  const again = await upsert([{ ...first, day: '2026-03-02', data: { score: 90 } }]);
  expect(again).toMatchObject({ refused: [], stored: [{ id: first.id, inserted: false, day: '2026-03-02', data: { score: 90 } }] });
  expect(again.stored[0].updatedAt.getTime()).toBeGreaterThan(again.stored[0].createdAt.getTime());
});

it('refuses an id stored for another user or of another type, storing the rest of the batch', async () => {
  const [owner, intruder] = [await createUser(db, team.teamId), await createUser(db, team.teamId)];
  const theirs = summary(owner);
  await upsert([theirs]);
  const mine = summary(intruder);
  const result = await upsert([{ ...theirs, userId: intruder, data: { score: 0 } }, mine, { ...theirs, type: 'activity' }]);
  expect(result.refused).toEqual([theirs.id, theirs.id]);
  expect(result.stored.map((row) => row.id)).toEqual([mine.id]);
  expect((await repo.findById(theirs.id, 'sleep'))?.data).toEqual({ score: 80 });
  expect(await repo.findById(theirs.id, 'activity')).toBeNull();
});

it("lists a user's summaries of a type by day, bounds included, undated ones first; narrowed by provider", async () => {
  const userId = await createUser(db, team.teamId);
  const rows = [
    summary(userId, { day: '2026-03-03' }),
    summary(userId, { day: null }),
    summary(userId, { day: '2026-03-01', provider: 'whoop' }),
    summary(userId, { day: '2026-03-02' }),
    summary(userId, { day: '2026-03-02', type: 'activity' }),
    summary(await createUser(db, team.teamId), { day: '2026-03-02' }),
  ];
  await upsert(rows);
  const days = async (range: { from: string | null; to: string | null; provider?: string }) => (await repo.list(userId, 'sleep', range)).map((row) => row.day);
  expect(await days({ from: null, to: null })).toEqual([null, '2026-03-01', '2026-03-02', '2026-03-03']);
  expect(await days({ from: '2026-03-01', to: '2026-03-02' })).toEqual(['2026-03-01', '2026-03-02']);
  expect(await days({ from: null, to: null, provider: 'whoop' })).toEqual(['2026-03-01']);
});

it("a workout's stream is replaced by a later one", async () => {
  const userId = await createUser(db, team.teamId);
  const workout = summary(userId, { type: 'workouts' });
  await upsert([workout]);
  await db.transaction((manager) => repo.saveWorkoutStreams(manager, [{ workoutId: workout.id, stream: { hr: [1] } }]));
  await db.transaction((manager) => repo.saveWorkoutStreams(manager, [{ workoutId: workout.id, stream: { hr: [2] } }]));
  expect(await repo.workoutStream(workout.id)).toEqual({ hr: [2] });
  expect(await repo.workoutStream(randomUUID())).toBeNull();
});

it('statistics span dated and undated summaries per type and provider', async () => {
  const userId = await createUser(db, team.teamId);
  await upsert([summary(userId, { day: '2026-01-01' }), summary(userId, { day: '2026-02-01' }), summary(userId, { day: '2026-01-15', provider: 'whoop' })]);
  const stats = await repo.statistics([userId]);
  expect(stats.map((row) => [row.type, row.provider, row.count, row.oldest.toISOString().slice(0, 10), row.newest.toISOString().slice(0, 10)]).sort()).toEqual([
    ['sleep', 'oura', 2, '2026-01-01', '2026-02-01'],
    ['sleep', 'whoop', 1, '2026-01-15', '2026-01-15'],
  ]);
  expect((await repo.statistics([userId], 'whoop')).map((row) => row.count)).toEqual([1]);
});
