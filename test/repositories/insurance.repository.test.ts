import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PayorRegistry } from '../../src/insurance/insurance.repository';
import { UserInfoRepository } from '../../src/users/user-info.repository';
import { createTeam, createUser, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** PayorRegistry (the platform's payors and each team's own) and UserInfoRepository (audited writes). */
let db: DataSource;
let payors: PayorRegistry;
let mine: Team;
let theirs: Team;

beforeAll(async () => {
  db = await testDatabase();
  payors = new PayorRegistry(db);
  [mine, theirs] = [await createTeam(db), await createTeam(db)];
});
afterAll(async () => {
  await dropTeams(db, [mine, theirs]);
  await db.destroy();
});

async function payor(of: Team | null, name: string, fields: { aliases?: string[]; provider?: string; providerPayorId?: string } = {}): Promise<string> {
  const code = `T${randomUUID().slice(0, 8).toUpperCase()}`;
  await db.query(`INSERT INTO payors (code, name, address, team_id, aliases, provider, provider_payor_id) VALUES ($1, $2, '{}', $3, $4, $5, $6)`, [
    code,
    name,
    of?.teamId ?? null,
    fields.aliases ?? [],
    fields.provider ?? null,
    fields.providerPayorId ?? null,
  ]);
  return code;
}

describe('PayorRegistry', () => {
  it("finds the team's own payors and the platform's, never another team's; the team's first", async () => {
    const tag = randomUUID().slice(0, 6);
    const own = await payor(mine, `Zeta ${tag} Health`);
    const foreign = await payor(theirs, `Alpha ${tag} Health`);
    const aliased = await payor(mine, `Other Name`, { aliases: [`beta ${tag} care`] });
    expect((await payors.search(mine.teamId, { name: tag })).map((row) => row.code)).toEqual([aliased, own]);
    expect((await payors.search(theirs.teamId, { name: tag.toUpperCase() })).map((row) => row.code)).toEqual([foreign]);
    expect((await payors.findVisible(mine.teamId, own))?.name).toContain('Zeta');
    expect(await payors.findVisible(mine.teamId, foreign)).toBeNull();
    expect((await payors.search(mine.teamId, { name: own.toLowerCase() })).map((row) => row.code)).toEqual([own]);
    // The platform's seeded payors are everyone's.
    const [seeded] = await db.query(`SELECT code FROM payors WHERE team_id IS NULL LIMIT 1`);
    expect((await payors.findVisible(theirs.teamId, seeded.code))?.code).toBe(seeded.code);
  });

  it("takes LIKE's wildcards in a name literally", async () => {
    const tag = randomUUID().slice(0, 6);
    const literal = await payor(mine, `Fifty%_${tag}`);
    await payor(mine, `Fifty Percent ${tag}`);
    expect((await payors.search(mine.teamId, { name: `%_${tag}` })).map((row) => row.code)).toEqual([literal]);
  });

  it("finds the team's payor by its clearinghouse id", async () => {
    const code = await payor(mine, 'Clearing', { provider: 'change', providerPayorId: 'CH-1' });
    expect((await payors.findByProviderId(mine.teamId, 'change', 'CH-1'))?.code).toBe(code);
    expect(await payors.findByProviderId(theirs.teamId, 'change', 'CH-1')).toBeNull();
  });
});

describe('UserInfoRepository', () => {
  it('replaces the info and audits each write and read', async () => {
    const repo = new UserInfoRepository(db);
    const userId = await createUser(db, mine.teamId);
    const by = { teamId: mine.teamId, apiKeyId: null };
    expect(await repo.find(userId)).toBeNull();
    await repo.upsertAudited(userId, 'first', by);
    await repo.upsertAudited(userId, 'second', by);
    await repo.logRead(userId, by);
    expect(await repo.find(userId)).toBe('second');
    expect(await db.query(`SELECT action FROM phi_access_log WHERE resource_id = $1 ORDER BY id`, [userId])).toEqual([
      { action: 'write' },
      { action: 'write' },
      { action: 'read' },
    ]);
  });
});
