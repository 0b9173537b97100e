import { createHash, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { ApiKeysRepository, TEAM_KEY_REVOKED_CHANNEL } from '../../src/tenancy/api-keys.repository';
import { createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** ApiKeysRepository: key lookups by hash, never of a revoked key, and the revocation notices API processes listen to. */
let db: DataSource;
let repo: ApiKeysRepository;
let team: Team;

beforeAll(async () => {
  db = await testDatabase();
  repo = new ApiKeysRepository(db);
  team = await createTeam(db);
});
afterAll(async () => {
  await dropTeams(db, [team]);
  await db.destroy();
});

const hash = () => createHash('sha256').update(randomBytes(16)).digest();
const teamKey = (keyHash: Buffer) =>
  repo.insertTeamKey({ teamId: team.teamId, environment: 'sandbox', region: 'us', label: 'k', keyHash, keyPrefix: 'pk_' } as never);

it('finds a team key by its hash until it is revoked', async () => {
  const keyHash = hash();
  const stored = await teamKey(keyHash);
  expect(await repo.findTeamKeyByHash(keyHash)).toMatchObject({ id: stored.id, team_id: team.teamId, environment: 'sandbox', region: 'us' });
  expect(await repo.findTeamKeyByHash(hash())).toBeNull();
  await db.query(`UPDATE team_api_keys SET revoked_at = now() WHERE id = $1`, [stored.id]);
  expect(await repo.findTeamKeyByHash(keyHash)).toBeNull();
});

it('a management key is found with its org until revoked', async () => {
  const keyHash = hash();
  const stored = await repo.insertManagementKey({
    orgId: team.orgId,
    label: 'm',
    role: 'org_admin',
    teamIds: [],
    keyHash,
    keyPrefix: 'mk_',
    creatorKeyId: null,
  } as never);
  const found = await repo.findManagementKeyByHash(keyHash);
  expect(found?.id).toBe(stored.id);
  expect((await repo.findOrgOfKey(found!.orgId)).id).toBe(team.orgId);
  await db.query(`UPDATE management_keys SET revoked_at = now() WHERE id = $1`, [stored.id]);
  expect(await repo.findManagementKeyByHash(keyHash)).toBeNull();
});

it("announces a revoked or deleted team key's hash when its transaction commits, and not before", async () => {
  const [revoked, deleted] = [hash(), hash()];
  const [first, second] = [await teamKey(revoked), await teamKey(deleted)];
  const listener = new Client({ connectionString: process.env.DATABASE_URL });
  await listener.connect();
  const heard: string[] = [];
  listener.on('notification', (message) => {
    if (message.channel === TEAM_KEY_REVOKED_CHANNEL && message.payload) heard.push(message.payload);
  });
  try {
    await repo.listenForTeamKeyRevocations(listener);
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    await runner.query(`UPDATE team_api_keys SET revoked_at = now() WHERE id = $1`, [first.id]);
    await listener.query('SELECT 1');
    expect(heard).toEqual([]);
    await runner.commitTransaction();
    await runner.release();
    await db.query(`DELETE FROM team_api_keys WHERE id = $1`, [second.id]);
    // A round trip on the listening connection delivers what was notified before it.
    await listener.query('SELECT 1');
    expect(heard).toEqual(expect.arrayContaining([revoked.toString('hex'), deleted.toString('hex')]));
  } finally {
    await listener.end();
  }
});
