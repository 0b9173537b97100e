import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { decodeCursor } from '../../src/common/keyset-cursor';
import { CustomCredentialEntity } from '../../src/management/custom-credentials/custom-credential.entity';
import { CustomCredentialsRepository } from '../../src/management/custom-credentials/custom-credentials.repository';
import { OrgsRepository } from '../../src/management/orgs.repository';
import { TeamApiKeysRepository } from '../../src/management/team-api-keys/team-api-keys.repository';
import { TeamConflictError, TeamsRepository } from '../../src/management/teams/teams.repository';
import { TeamEntity } from '../../src/tenancy/entities';
import { createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** The management API's teams, orgs, team keys and custom credentials: always within one org. */
let db: DataSource;
let teams: TeamsRepository;
const created: Team[] = [];

beforeAll(async () => {
  db = await testDatabase();
  teams = new TeamsRepository(db);
});
afterAll(async () => {
  await dropTeams(db, created);
  await db.destroy();
});

async function org(): Promise<Team> {
  const team = await createTeam(db);
  created.push(team);
  return team;
}
const team = (orgId: string, name: string, fields: Partial<TeamEntity> = {}) =>
  Object.assign(new TeamEntity(), { id: randomUUID(), orgId, name, region: 'us', integrationTeamId: null, partialWebhooksEnabled: false, ...fields });

describe('TeamsRepository', () => {
  it('an integration team id is unique within an org; a taken one is a conflict on it', async () => {
    const { orgId } = await org();
    await teams.insert(team(orgId, 'a', { integrationTeamId: 'int-1' }));
    await expect(teams.insert(team(orgId, 'b', { integrationTeamId: 'int-1' }))).rejects.toEqual(new TeamConflictError('integration_team_id'));
    const first = await teams.insert(team(orgId, 'c'));
    await expect(teams.insert(team(orgId, 'd', { id: first.id }))).rejects.toEqual(new TeamConflictError('id'));
    const { orgId: otherOrg } = await org();
    expect((await teams.insert(team(otherOrg, 'e', { integrationTeamId: 'int-1' }))).integrationTeamId).toBe('int-1');
    expect((await teams.findByIntegrationTeamId(orgId, 'int-1'))?.name).toBe('a');
  });

  it("searches names with LIKE's characters taken literally, pages across ties, never another org's", async () => {
    const { orgId, teamId: seeded } = await org();
    const ids: string[] = [];
    for (const name of ['100% Labs', '100 Labs', 'A_B', 'AxB']) ids.push((await teams.insert(team(orgId, name))).id);
    await db.query(`UPDATE teams SET created_on = '2026-01-01T00:00:00.000001Z' WHERE id = ANY($1::uuid[])`, [[...ids, seeded]]);
    const { orgId: otherOrg } = await org();
    await teams.insert(team(otherOrg, '100% Other'));
    const names = async (search: string) => (await teams.listPage(orgId, { search }, undefined, 10)).items.map((item) => item.name);
    expect(await names('100%')).toEqual(['100% Labs']);
    expect(await names('a_b')).toEqual(['A_B']);

    const first = await teams.listPage(orgId, {}, undefined, 3);
    const second = await teams.listPage(orgId, {}, decodeCursor(first.nextCursor!)!, 3);
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual([...ids, seeded].sort());
    expect(second.nextCursor).toBeNull();
  });

  it("deleting a team unbinds it from its org's management keys; another org's team is not deleted", async () => {
    const { orgId } = await org();
    const [kept, gone] = [await teams.insert(team(orgId, 'kept')), await teams.insert(team(orgId, 'gone'))];
    const keyId = randomUUID();
    await db.query(`INSERT INTO management_keys (id, org_id, label, role, team_ids, key_hash, key_prefix) VALUES ($1, $2, 'k', 'team_admin', $3, $4, 'mk_')`, [
      keyId,
      orgId,
      [kept.id, gone.id],
      Buffer.from(randomUUID()),
    ]);
    const { orgId: otherOrg } = await org();
    expect(await teams.delete(otherOrg, gone.id)).toBe(false);
    expect(await teams.delete(orgId, gone.id)).toBe(true);
    expect(await db.query(`SELECT team_ids FROM management_keys WHERE id = $1`, [keyId])).toEqual([{ team_ids: [kept.id] }]);
    expect(await teams.findInOrg(orgId, gone.id)).toBeNull();
  });
});

describe('OrgsRepository and TeamApiKeysRepository', () => {
  it('an org id is inserted once', async () => {
    const orgs = new OrgsRepository(db);
    const id = randomUUID();
    expect(await orgs.insert({ id, name: 'first', plan: 'scale' } as never)).toBe(true);
    expect(await orgs.insert({ id, name: 'second', plan: 'scale' } as never)).toBe(false);
    expect((await orgs.rename(id, 'renamed'))?.name).toBe('renamed');
    await db.query(`DELETE FROM orgs WHERE id = $1`, [id]);
  });

  it("revokes live keys once, and lists the org's live keys of the environment and region only", async () => {
    const keys = new TeamApiKeysRepository(db);
    const mine = await org();
    const theirs = await org();
    const key = async (of: Team, environment = 'sandbox') => {
      const id = randomUUID();
      await db.query(`INSERT INTO team_api_keys (id, team_id, environment, region, label, key_hash, key_prefix) VALUES ($1, $2, $3, 'us', 'k', $4, 'pk_')`, [
        id,
        of.teamId,
        environment,
        Buffer.from(randomUUID()),
      ]);
      return id;
    };
    const [a, b] = [await key(mine), await key(mine)];
    await key(mine, 'production');
    await key(theirs);
    expect(await keys.revoke([a, b])).toBe(2);
    expect(await keys.revoke([a, b])).toBe(0);
    const c = await key(mine);
    const scope = { orgId: mine.orgId, environment: 'sandbox' as const, region: 'us' as const };
    expect((await keys.listLivePage(scope, {}, undefined, 10)).items.map((item) => item.id)).toEqual([c]);
    expect((await keys.findInScope(scope, [a, c])).map((item) => item.id).sort()).toEqual([a, c].sort());
    expect(await keys.findLiveById(a)).toBeNull();
  });
});

describe('CustomCredentialsRepository', () => {
  it("two first writes of one team's provider at once: one creates it, the other changes it", async () => {
    const repo = new CustomCredentialsRepository(db);
    const mine = await org();
    const key = { teamId: mine.teamId, environment: 'sandbox' as const, region: 'us' as const, provider: 'oura' };
    const create = (clientId: string) => () =>
      Object.assign(new CustomCredentialEntity(), {
        id: randomUUID(),
        ...key,
        clientId,
        clientSecretEnc: null,
        clientSecretHash: null,
        redirectUrlOverride: null,
        detailsEnc: null,
        source: 'management',
      });
    const writes = await Promise.all(
      ['first', 'second'].map((clientId) =>
        repo.upsert(key, create(clientId), (existing) => {
          existing.detailsEnc = `changed by ${clientId}`;
        }),
      ),
    );
    expect(writes[0].id).toBe(writes[1].id);
    const rows = await db.query(`SELECT client_id, details_enc FROM team_custom_credentials WHERE team_id = $1`, [mine.teamId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].details_enc).toMatch(/^changed by (first|second)$/);
    expect(rows[0].details_enc).not.toBe(`changed by ${rows[0].client_id}`);
    const scope = { orgId: mine.orgId, environment: 'sandbox' as const, region: 'us' as const };
    expect((await repo.listPage(scope, { provider: 'oura' }, undefined, 10)).items.map((item) => item.id)).toEqual([writes[0].id]);
    expect((await repo.listPage({ ...scope, orgId: (await org()).orgId }, {}, undefined, 10)).items).toEqual([]);
  });
});
