import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { UsersRepository } from '../../src/users/users.repository';
import { createTeam, createUser, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** UsersRepository: live users per team and environment, the deletion grace period and its undo. */
let db: DataSource;
let repo: UsersRepository;
const teams: Team[] = [];

beforeAll(async () => {
  db = await testDatabase();
  repo = new UsersRepository(db);
});
afterAll(async () => {
  await dropTeams(db, teams);
  await db.destroy();
});

async function team(): Promise<Team> {
  const created = await createTeam(db);
  teams.push(created);
  return created;
}
const scope = (of: Team) => ({ teamId: of.teamId, environment: 'sandbox' as const });
const pending = (userId: string, at = new Date()) => repo.markPendingDeletion(userId, at);

it("pages the team's live users in creation order with their total; a page past the end still counts them", async () => {
  const mine = await team();
  const other = await team();
  const users: string[] = [];
  for (let i = 0; i < 5; i++) users.push(await createUser(db, mine.teamId));
  await db.query(`UPDATE users SET created_on = '2026-01-01T00:00:00Z' WHERE id = ANY($1::uuid[])`, [users]);
  await pending(users[2]);
  await createUser(db, other.teamId);
  const live = users.filter((_, index) => index !== 2).sort();

  const first = await repo.listLive(scope(mine), 0, 3);
  const second = await repo.listLive(scope(mine), 3, 3);
  expect(first.users.map((user) => user.id)).toEqual(live.slice(0, 3));
  expect(second.users.map((user) => user.id)).toEqual(live.slice(3));
  expect([first.total, second.total]).toEqual([4, 4]);
  expect(await repo.listLive(scope(mine), 10, 3)).toEqual({ users: [], total: 4 });
  expect(await repo.listLive({ ...scope(mine), environment: 'production' }, 0, 3)).toEqual({ users: [], total: 0 });
});

it('finds a live user only in its own team and environment, and not while it is pending deletion', async () => {
  const mine = await team();
  const other = await team();
  const userId = await createUser(db, mine.teamId, 'patient-1');
  expect((await repo.findLive(scope(mine), userId))?.clientUserId).toBe('patient-1');
  expect(await repo.findLive(scope(other), userId)).toBeNull();
  expect((await repo.findLiveByClientUserId(scope(mine), 'patient-1'))?.id).toBe(userId);
  expect(await repo.findLiveByClientUserId(scope(other), 'patient-1')).toBeNull();

  expect(await pending(userId)).toBe(true);
  expect(await pending(userId)).toBe(false);
  expect(await repo.findLive(scope(mine), userId)).toBeNull();
  expect((await repo.findPendingDeletion(scope(mine), userId))?.id).toBe(userId);
  expect(await repo.clientUserIdOf(userId)).toBe('patient-1');
});

it("a client_user_id is one live user's; undoing a deletion after it was taken again answers `taken`", async () => {
  const mine = await team();
  const deleted = await createUser(db, mine.teamId, 'patient-2');
  await expect(createUser(db, mine.teamId, 'patient-2')).rejects.toThrow(/users_live_client_user_id/);
  await pending(deleted, new Date('2026-01-01T00:00:00Z'));
  const again = await createUser(db, mine.teamId, 'patient-2');

  expect(await repo.clearPendingDeletion(deleted)).toBe('taken');
  expect((await repo.findPendingDeletion(scope(mine), deleted))?.id).toBe(deleted);
  await pending(again, new Date('2026-01-02T00:00:00Z'));
  expect((await repo.findPendingDeletionByClientUserId(scope(mine), 'patient-2'))?.id).toBe(again);
  expect(await repo.clearPendingDeletion(deleted)).toBe('restored');
  expect(await repo.clearPendingDeletion(randomUUID())).toBe('gone');
});

it('erases a user only while it is pending deletion, with what it owns', async () => {
  const mine = await team();
  const userId = await createUser(db, mine.teamId);
  await db.query(`INSERT INTO health_series (user_id, resource, provider, source_type) VALUES ($1, 'heartrate', 'oura', 'ring')`, [userId]);
  expect(await repo.erasePendingDeletion(userId)).toBe(false);
  await pending(userId);
  expect(await repo.erasePendingDeletion(userId)).toBe(true);
  expect(await repo.clientUserIdOf(userId)).toBeNull();
  expect(await db.query(`SELECT id FROM health_series WHERE user_id = $1`, [userId])).toEqual([]);
  expect(await repo.erasePendingDeletion(userId)).toBe(false);
});
