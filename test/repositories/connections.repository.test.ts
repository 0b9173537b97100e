import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ConnectionsRepository, type NewConnection } from '../../src/connections/connections.repository';
import { createTeam, createUser, migratedScratchDatabase, type Team } from '../helpers/repository-db';

/** ConnectionsRepository on a database of this file's own: the reconciler pages through every connection. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: ConnectionsRepository;
let team: Team;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_connections');
  db = scratch.db;
  repo = new ConnectionsRepository(db);
  team = await createTeam(db);
});
afterAll(() => scratch?.drop());

const connection = (userId: string, fields: Partial<NewConnection> = {}): NewConnection => ({
  id: randomUUID(),
  teamId: team.teamId,
  environment: 'sandbox',
  region: 'us',
  userId,
  provider: 'oura',
  seed: 'seed-1',
  ...fields,
});
const insert = async (userId: string, fields: Partial<NewConnection> = {}) => (await repo.insertIfAbsent(connection(userId, fields)))!;
const markErrored = (id: string, type: string, message: string) => db.transaction((manager) => repo.markErrored(id, type, message, manager));

describe('insertIfAbsent', () => {
  it("answers the pair's existing connection to a second insert; null once the user is gone", async () => {
    const userId = await createUser(db, team.teamId);
    const first = await insert(userId, { credentialsEnc: 'grant-1' });
    const second = await repo.insertIfAbsent(connection(userId, { credentialsEnc: 'grant-2' }));
    expect(second?.id).toBe(first.id);
    expect(await repo.credentialsOf(first.id)).toBe('grant-1');
    expect((await insert(userId, { provider: 'dexcom' })).id).not.toBe(first.id);
    expect(await repo.insertIfAbsent(connection(randomUUID()))).toBeNull();
  });

  it("a second insert racing an uncommitted first waits for it and answers the first's row", async () => {
    const userId = await createUser(db, team.teamId);
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    const first = await repo.insertIfAbsent(connection(userId), runner.manager);
    const second = repo.insertIfAbsent(connection(userId));
    for (let waiting = 0; waiting < 1;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      [{ waiting }] = await db.query(`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
    }
    await runner.commitTransaction();
    await runner.release();
    expect((await second)?.id).toBe(first?.id);
  });
});

describe('status', () => {
  it('an error is announced once per episode, keeping its first details; a sync ends the episode', async () => {
    const { id } = await insert(await createUser(db, team.teamId));
    expect(await markErrored(id, 'token_refresh_failed', 'first')).toMatchObject({ status: 'error', errorType: 'token_refresh_failed', errorMessage: 'first' });
    expect(await markErrored(id, 'other', 'second')).toBeNull();
    expect(await repo.findById(id)).toMatchObject({ status: 'error', errorMessage: 'first' });

    const at = new Date('2026-11-01T00:00:00Z');
    await repo.markSynced(id, at, true);
    await repo.markSynced(id, new Date('2026-11-02T00:00:00Z'), true);
    expect(await repo.findById(id)).toMatchObject({ status: 'connected', errorType: null, errorMessage: null, erroredAt: null, backfilledAt: at });
    expect(await markErrored(id, 'other', 'again')).toMatchObject({ errorMessage: 'again' });
  });

  it("pauses the team's pulled connections to the provider of the users named only, clearing an error; resume needs a pause", async () => {
    const other = await createTeam(db);
    const [a, b, c] = [await createUser(db, team.teamId), await createUser(db, team.teamId), await createUser(db, team.teamId)];
    const errored = await insert(a);
    await markErrored(errored.id, 'x', 'y');
    const pushed = await insert(b, { kind: 'push' });
    const notNamed = await insert(c);
    const otherProvider = await insert(a, { provider: 'dexcom' });
    const theirUser = await createUser(db, other.teamId);
    const theirs = await insert(theirUser, { teamId: other.teamId });

    expect(await repo.pause(team.teamId, 'sandbox', 'oura', [a, b, theirUser])).toEqual([a]);
    expect(await repo.findById(errored.id)).toMatchObject({ status: 'paused', errorType: null });
    for (const untouched of [pushed, notNamed, otherProvider, theirs]) expect((await repo.findById(untouched.id))?.status).toBe('connected');

    await repo.resume(errored.id);
    expect((await repo.findById(errored.id))?.status).toBe('connected');
    await markErrored(errored.id, 'x', 'y');
    await repo.resume(errored.id);
    expect((await repo.findById(errored.id))?.status).toBe('error');
  });
});

describe('credentials', () => {
  it("a new grant replaces the old; the provider's user id stays unless a new one is given", async () => {
    const userId = await createUser(db, team.teamId);
    const { id } = await insert(userId, { externalUserId: 'ext-1', credentialsEnc: 'g1' });
    await repo.storeCredentials(id, 'g2');
    expect(await repo.findById(id)).toMatchObject({ externalUserId: 'ext-1' });
    await repo.storeCredentials(id, 'g3', 'ext-2');
    expect(await repo.findById(id)).toMatchObject({ externalUserId: 'ext-2' });
    expect(await repo.sealedGrantsOf(userId)).toEqual([{ id, provider: 'oura', environment: 'sandbox', sealed: 'g3' }]);
  });

  it("finds a provider account's pulled connections in every team, not its pushed ones", async () => {
    const other = await createTeam(db);
    const external = `ext-${randomUUID()}`;
    const mine = await insert(await createUser(db, team.teamId), { externalUserId: external });
    const theirs = await insert(await createUser(db, other.teamId), { teamId: other.teamId, externalUserId: external });
    await insert(await createUser(db, team.teamId), { externalUserId: external, kind: 'push' });
    expect((await repo.findPulledByExternalUser('oura', external)).map((row) => row.id)).toEqual([mine.id, theirs.id]);
    expect(await repo.findPulledByExternalUser('dexcom', external)).toEqual([]);
  });

  it("exports a team's grants by user id, page after page, named users only when asked", async () => {
    const exporter = await createTeam(db);
    const users: string[] = [];
    for (let i = 0; i < 5; i++) {
      const userId = await createUser(db, exporter.teamId);
      users.push(userId);
      await insert(userId, { teamId: exporter.teamId, credentialsEnc: `g-${userId}` });
    }
    await insert(await createUser(db, exporter.teamId), { teamId: exporter.teamId, credentialsEnc: null });
    const page = (after: string | null, only: string[] | null = null) => repo.exportPage(exporter.teamId, 'sandbox', 'oura', only, after, 2);
    const seen: string[] = [];
    for (let rows = await page(null); rows.length > 0; rows = await page(rows[rows.length - 1].userId)) seen.push(...rows.map((row) => row.userId));
    expect(seen).toEqual([...users].sort());
    const named = [users[0], users[3]].sort();
    expect((await page(null, named)).map((row) => row.sealed)).toEqual(named.map((userId) => `g-${userId}`));
  });
});

describe('the reconciler', () => {
  it('pages through every connection by id, each once; a full last page leads to an empty one', async () => {
    const all: string[] = (await db.query(`SELECT id FROM provider_connections ORDER BY id`)).map((row: { id: string }) => row.id);
    expect(all.length).toBeGreaterThan(6);
    for (const size of [3, all.length]) {
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const page: { rows: Array<{ id: string }>; next: string | null } = await repo.page(after, size);
        seen.push(...page.rows.map((row) => row.id));
        after = page.next;
        pages++;
      } while (after);
      expect(seen).toEqual(all);
      expect(pages).toBe(Math.floor(all.length / size) + 1);
    }
  });

  it('runs one pass at a time: a pass while another holds the lock does nothing', async () => {
    const inner = await repo.exclusively(() => repo.exclusively(async () => 'inner'));
    expect(inner).toEqual({ ran: true, value: { ran: false } });
    expect(await repo.exclusively(async () => 'after')).toEqual({ ran: true, value: 'after' });
  });
});

describe('metrics', () => {
  it("counts the team's connections and errors, and per week those made in it and by its end", async () => {
    const counted = await createTeam(db);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await insert(await createUser(db, counted.teamId), { teamId: counted.teamId })).id);
    await db.query(`UPDATE provider_connections SET created_at = date_trunc('week', now()) - interval '3 days' WHERE id = $1`, [ids[0]]);
    await markErrored(ids[1], 'x', 'y');
    await insert(await createUser(db, counted.teamId), { teamId: counted.teamId, environment: 'production' });

    const metrics = await repo.metricsOf(counted.teamId, 'sandbox', 2);
    expect({ connected: metrics.connected, errored: metrics.errored }).toEqual({ connected: 3, errored: 1 });
    expect(metrics.byWeek.map((week) => [week.value, week.all])).toEqual([
      [1, 1],
      [2, 3],
    ]);
  });
});
