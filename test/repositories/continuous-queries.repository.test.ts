import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { decodeCursor } from '../../src/common/keyset-cursor';
import { ContinuousQueriesRepository, type QueryOwner } from '../../src/health-data/continuous-queries/continuous-queries.repository';
import { createTeam, createUser, migratedScratchDatabase } from '../helpers/repository-db';

/** ContinuousQueriesRepository on a database of this file's own: runners claim every team's due tasks. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: ContinuousQueriesRepository;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_continuous_queries');
  db = scratch.db;
  repo = new ContinuousQueriesRepository(db);
});
afterAll(() => scratch?.drop());

async function owner(): Promise<QueryOwner> {
  return { teamId: (await createTeam(db)).teamId, environment: 'sandbox' };
}

async function query(of: QueryOwner, slug: string, source = 'timeseries:heartrate'): Promise<string> {
  const id = randomUUID();
  expect(await repo.insert({ id, team_id: of.teamId, environment: of.environment, slug, query: { select: [] }, past: { value: 1, unit: 'day' }, source })).toBe(
    true,
  );
  return id;
}

/** Deletes every task, so a test's claims see its own only. */
const noTasks = () => db.query(`DELETE FROM continuous_query_tasks`);
const schedule = (of: QueryOwner, userId: string, source = 'timeseries:heartrate', debounceMs = 0) =>
  db.transaction((manager) => repo.schedule(manager, of, userId, source, debounceMs));
const tasks = (userId: string) =>
  db.query(`SELECT query_id, status, attempts FROM continuous_query_tasks WHERE user_id = $1 ORDER BY scheduled_at, id`, [userId]) as Promise<
    Array<{ query_id: string; status: string; attempts: number }>
  >;

describe('definitions', () => {
  it("a slug is the owner's once; another environment or team may use it", async () => {
    const team = await owner();
    await query(team, 'resting-hr');
    const row = { id: randomUUID(), team_id: team.teamId, environment: 'sandbox', slug: 'resting-hr', query: {}, past: { value: 1, unit: 'day' }, source: 's' };
    expect(await repo.insert(row)).toBe(false);
    expect(await repo.insert({ ...row, environment: 'production' })).toBe(true);
    const other = await owner();
    expect(await repo.insert({ ...row, id: randomUUID(), team_id: other.teamId })).toBe(true);
  });

  it("renaming to a slug the owner uses is refused; another team's query is missing, never changed", async () => {
    const team = await owner();
    const other = await owner();
    const a = await query(team, 'a');
    await query(team, 'b');
    const theirs = await query(other, 'theirs');
    const definition = { slug: 'b', query: { x: 1 }, past: { value: 2, unit: 'day' }, source: 'timeseries:heartrate' };
    expect(await repo.update(team, a, definition)).toBe('slug taken');
    expect(await repo.update(team, a, { ...definition, slug: 'c' })).toBe('updated');
    expect(await repo.update(team, theirs, { ...definition, slug: 'c' })).toBe('missing');
    expect(await repo.delete(team, theirs)).toBe(false);
    expect((await repo.find(other, theirs))?.slug).toBe('theirs');
  });

  it('finds by id (any case) or slug, within the owner only, and lists in slug order', async () => {
    const team = await owner();
    const other = await owner();
    const id = await query(team, 'zeta');
    await query(team, 'alpha');
    await query(other, 'beta');
    expect((await repo.find(team, id.toUpperCase()))?.slug).toBe('zeta');
    expect((await repo.find(team, 'zeta'))?.id).toBe(id);
    expect(await repo.find(other, id)).toBeNull();
    expect(await repo.find(team, 'beta')).toBeNull();
    expect((await repo.list(team)).map((row) => row.slug)).toEqual(['alpha', 'zeta']);
  });
});

describe('tasks', () => {
  beforeEach(noTasks);

  it("schedules one waiting task per query of the written source, the owner's only; a waiting task takes later writes", async () => {
    const team = await owner();
    const other = await owner();
    const userId = await createUser(db, team.teamId);
    const [first, second] = [await query(team, 'one'), await query(team, 'two')];
    await query(team, 'sleep', 'summary:sleep');
    await query(other, 'theirs');

    expect(await schedule(team, userId)).toBe(2);
    expect(await schedule(team, userId)).toBe(0);
    expect((await tasks(userId)).map((task) => task.query_id).sort()).toEqual([first, second].sort());

    // Once a runner started it, a new write needs a new task.
    await db.query(`UPDATE continuous_query_tasks SET status = 'started' WHERE query_id = $1`, [first]);
    expect(await schedule(team, userId)).toBe(1);
  });

  it('claims only tasks past their debounce, and answers the query and the user', async () => {
    const team = await owner();
    const userId = await createUser(db, team.teamId, 'client-cq');
    const id = await query(team, 'debounced');
    await schedule(team, userId, 'timeseries:heartrate', 60_000);
    expect(await repo.claim(10, 60_000)).toEqual([]);
    await db.query(`UPDATE continuous_query_tasks SET due_at = clock_timestamp() WHERE query_id = $1`, [id]);
    const [claimed] = await repo.claim(10, 60_000);
    expect(claimed).toMatchObject({
      attempts: 1,
      query: { id, slug: 'debounced', source: 'timeseries:heartrate' },
      user: { id: userId, client_user_id: 'client-cq', deleted: false },
    });
    expect(claimed.query.created_at).toBeInstanceOf(Date);
    // Claimed under a lease: not due again meanwhile.
    expect(await repo.claim(10, 60_000)).toEqual([]);
  });

  it('two runners get disjoint tasks, and a runner skips tasks another holds instead of waiting', async () => {
    const team = await owner();
    for (let i = 0; i < 6; i++) await query(team, `q${i}`);
    for (let i = 0; i < 2; i++) await schedule(team, await createUser(db, team.teamId));

    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    const held: Array<{ id: string }> = await runner.query(`SELECT id FROM continuous_query_tasks ORDER BY due_at LIMIT 3 FOR UPDATE`);
    const [a, b] = await Promise.all([repo.claim(5, 60_000), repo.claim(5, 60_000)]);
    await runner.rollbackTransaction();
    await runner.release();

    const claimed = [...a, ...b].map((task) => task.id);
    expect(claimed).toHaveLength(9);
    expect(new Set(claimed).size).toBe(9);
    expect(claimed).not.toEqual(expect.arrayContaining([held[0].id]));
    expect((await repo.claim(10, 60_000)).map((task) => task.id).sort()).toEqual(held.map((task) => task.id).sort());
  });

  it("a task whose lease ran out is claimed again; its first runner's finish then changes nothing", async () => {
    const team = await owner();
    const userId = await createUser(db, team.teamId);
    await query(team, 'leased');
    await schedule(team, userId);
    const [first] = await repo.claim(1, 60_000);
    await db.query(`UPDATE continuous_query_tasks SET due_at = clock_timestamp() - interval '1 second' WHERE id = $1`, [first.id]);
    const [second] = await repo.claim(1, 60_000);
    expect(second).toMatchObject({ id: first.id, attempts: 2 });

    expect(await db.transaction((manager) => repo.finish(manager, first.id, first.attempts, { status: 'completed' }))).toBe(false);
    expect(await db.transaction((manager) => repo.finish(manager, second.id, second.attempts, { status: 'error', detail: 'boom' }))).toBe(true);
    expect(await db.query(`SELECT status, error_details, ended_at IS NOT NULL AS ended FROM continuous_query_tasks WHERE id = $1`, [first.id])).toEqual([
      { status: 'error', error_details: 'boom', ended: true },
    ]);
    // Ended: never claimed again.
    await db.query(`UPDATE continuous_query_tasks SET due_at = clock_timestamp() - interval '1 hour' WHERE id = $1`, [first.id]);
    expect(await repo.claim(10, 60_000)).toEqual([]);
  });

  it('marks the user of a task whose erasure was asked for', async () => {
    const team = await owner();
    const userId = await createUser(db, team.teamId);
    await query(team, 'erased');
    await schedule(team, userId);
    await db.query(`UPDATE users SET deletion_requested_at = now() WHERE id = $1`, [userId]);
    expect((await repo.claim(1, 60_000))[0].user).toMatchObject({ id: userId, deleted: true });
  });

  it('history pages newest first across tasks scheduled at the same microsecond; the last page has no cursor', async () => {
    const team = await owner();
    const userId = await createUser(db, team.teamId);
    const queryId = await query(team, 'history');
    const ids = Array.from({ length: 5 }, () => randomUUID());
    for (const [index, id] of ids.entries()) {
      await db.query(`INSERT INTO continuous_query_tasks (id, query_id, user_id, status, scheduled_at, due_at) VALUES ($1, $2, $3, 'completed', $4, $4)`, [
        id,
        queryId,
        userId,
        index < 3 ? '2026-05-01T10:00:00.000001Z' : '2026-05-02T10:00:00Z',
      ]);
    }
    const expected = [...ids.slice(3).sort().reverse(), ...ids.slice(0, 3).sort().reverse()];
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof repo.history>> = await repo.history(queryId, userId, cursor ? (decodeCursor(cursor) ?? undefined) : undefined, 2);
      seen.push(...page.items.map((task) => task.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);
    // A page that ends exactly at the last task: no cursor to an empty page.
    expect((await repo.history(queryId, userId, undefined, 5)).nextCursor).toBeNull();
    expect(await repo.history(queryId, await createUser(db, team.teamId), undefined, 5)).toEqual({ items: [], nextCursor: null });
  });

  it('retention deletes ended tasks older than the cutoff only, at most a batch at a time', async () => {
    const team = await owner();
    const userId = await createUser(db, team.teamId);
    const queryId = await query(team, 'retention');
    for (const [status, ended] of [
      ['completed', '10 days'],
      ['error', '10 days'],
      ['completed', '1 hour'],
      ['started', null],
    ] as const) {
      await db.query(
        `INSERT INTO continuous_query_tasks (id, query_id, user_id, status, due_at, ended_at)
         VALUES (gen_random_uuid(), $1, $2, $3, now(), now() - $4::interval)`,
        [queryId, userId, status, ended],
      );
    }
    expect(await repo.deleteEnded(86_400_000, 1)).toBe(1);
    expect(await repo.deleteEnded(86_400_000, 10)).toBe(1);
    expect((await tasks(userId)).map((task) => task.status).sort()).toEqual(['completed', 'started']);
  });
});

describe('results', () => {
  it('saves the latest table per query and user, and evaluations of one pair wait for each other', async () => {
    const team = await owner();
    const userId = await createUser(db, team.teamId);
    const queryId = await query(team, 'results');
    await db.transaction(async (manager) => {
      expect(await repo.lockResult(manager, queryId, userId)).toBeUndefined();
      await repo.saveResult(manager, queryId, userId, { rows: [1] });
    });

    const first = db.createQueryRunner();
    await first.connect();
    await first.startTransaction();
    expect(await repo.lockResult(first.manager, queryId, userId)).toEqual({ rows: [1] });
    let secondSaw: unknown = 'not yet';
    const second = db.transaction(async (manager) => {
      secondSaw = await repo.lockResult(manager, queryId, userId);
    });
    for (let waiting = 0; waiting < 1;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      [{ waiting }] = await db.query(`SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
    }
    expect(secondSaw).toBe('not yet');
    await repo.saveResult(first.manager, queryId, userId, { rows: [2] });
    await first.commitTransaction();
    await first.release();
    await second;
    expect(secondSaw).toEqual({ rows: [2] });
  });
});
