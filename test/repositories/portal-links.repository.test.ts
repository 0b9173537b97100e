import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PortalLinksRepository } from '../../src/portal/portal-links.repository';
import { createTeam, createUser, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** PortalLinksRepository: single-use launch links, communications links and their one-time codes. */
let db: DataSource;
let repo: PortalLinksRepository;
let team: Team;
let other: Team;

beforeAll(async () => {
  db = await testDatabase();
  repo = new PortalLinksRepository(db);
  [team, other] = [await createTeam(db), await createTeam(db)];
});
afterAll(async () => {
  await dropTeams(db, [team, other]);
  await db.destroy();
});

/** A link; a communications one with a code's stored form (its digests, as PortalTokens.codeDigests gives them). */
async function link(userId: string, context: 'launch' | 'communications', of: Team = team): Promise<{ id: string; code: Buffer[] | null }> {
  const id = randomUUID();
  const code = context === 'communications' ? [randomBytes(32)] : null;
  await repo.insertLink({
    id,
    team_id: of.teamId,
    environment: 'sandbox',
    user_id: userId,
    order_id: null,
    context,
    code_hash: code?.[0] ?? null,
    expires_at: new Date(Date.now() + 3_600_000),
  });
  return { id, code };
}
const scope = (of: Team) => ({ teamId: of.teamId, environment: 'sandbox' as const });

it('a launch link is used once, even by two callers at once', async () => {
  const { id } = await link(await createUser(db, team.teamId), 'launch');
  const uses = await Promise.all([repo.useOnce(id), repo.useOnce(id), repo.useOnce(id)]);
  expect(uses.filter(Boolean)).toHaveLength(1);
  expect(await repo.useOnce(id)).toBe(false);
});

it("revokes the user's live communications links of the team: one code or all, counting only those still live", async () => {
  const userId = await createUser(db, team.teamId);
  const [a, b] = [await link(userId, 'communications'), await link(userId, 'communications')];
  await link(userId, 'launch');
  const theirUser = await createUser(db, other.teamId);
  const theirs = await link(theirUser, 'communications', other);

  expect(await repo.revoke(scope(team), userId, a.code)).toBe(1);
  expect(await repo.revoke(scope(team), userId, a.code)).toBe(0);
  expect(await repo.revoke(scope(team), userId, null)).toBe(1);
  expect((await repo.byId(b.id))?.revoked_at).toBeInstanceOf(Date);
  // Another team's user and code are not this team's to revoke.
  expect(await repo.revoke(scope(team), theirUser, theirs.code)).toBe(0);
  expect((await repo.byId(theirs.id))?.revoked_at).toBeNull();
  expect(await repo.codeBelongsTo(scope(team), userId, a.code!)).toBe(true);
  expect(await repo.codeBelongsTo(scope(team), theirUser, theirs.code!)).toBe(false);
  expect((await repo.byCode(theirs.code!))?.id).toBe(theirs.id);
  // A code stored under an earlier key is found among the digests under each key.
  expect((await repo.byCode([randomBytes(32), ...theirs.code!]))?.id).toBe(theirs.id);
  expect(await repo.byCode([randomBytes(32)])).toBeNull();
});

it('stores codes up to the sends allowed, and none once too many wrong codes locked the link', async () => {
  const { id } = await link(await createUser(db, team.teamId), 'communications');
  const limits = { maxSends: 2, maxFailures: 3 };
  const store = () => repo.storeCode(id, Buffer.from('hash'), 'email', new Date(Date.now() + 600_000), limits);
  expect(await store()).toBe(true);
  expect(await store()).toBe(true);
  expect(await store()).toBe(false);
  expect((await repo.byId(id))?.otp_sends).toBe(2);

  const locked = await link(await createUser(db, team.teamId), 'communications');
  for (const expected of [1, 2, 3]) expect(await repo.recordFailure(locked.id)).toBe(expected);
  expect(await repo.storeCode(locked.id, Buffer.from('h'), 'sms', new Date(), limits)).toBe(false);
  expect(await repo.recordFailure(randomUUID())).toBe(0);
});

it('a code is cleared once accepted; a session is audited and ends once', async () => {
  const userId = await createUser(db, team.teamId);
  const { id } = await link(userId, 'communications');
  await repo.storeCode(id, Buffer.from('hash'), 'sms', new Date(Date.now() + 600_000), { maxSends: 5, maxFailures: 5 });
  await repo.clearCode(id);
  expect(await repo.byId(id)).toMatchObject({ otp_hash: null, otp_expires_at: null, otp_sends: 1 });

  const sessionId = randomUUID();
  await repo.startSession({
    id: sessionId,
    link_id: id,
    team_id: team.teamId,
    user_id: userId,
    began_by: 'code',
    expires_at: new Date(Date.now() + 600_000),
  } as never);
  expect(await db.query(`SELECT team_id, action, resource FROM phi_access_log WHERE resource_id = $1`, [sessionId])).toEqual([
    { team_id: team.teamId, action: 'read', resource: 'portal_session' },
  ]);
  await repo.endSession(sessionId);
  const { ended_at: ended } = (await repo.session(sessionId))!;
  await repo.endSession(sessionId);
  expect((await repo.session(sessionId))?.ended_at).toEqual(ended);
});
