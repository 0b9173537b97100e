import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { LabAccountsRepository } from '../../src/lab-tests/lab-accounts.repository';
import { createTeam, migratedScratchDatabase, type Team } from '../helpers/repository-db';

/**
 * LabAccountsRepository.listVisible on a database of this file's own: platform accounts open to
 * every team would be offered to other test files' orders.
 */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: LabAccountsRepository;
let mine: Team;
let theirs: Team;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_lab_accounts');
  db = scratch.db;
  repo = new LabAccountsRepository(db);
  [mine, theirs] = [await createTeam(db), await createTeam(db)];
  await db.query(`DELETE FROM lab_accounts`);
});
afterAll(() => scratch?.drop());

async function account(
  name: string,
  fields: { team?: Team | null; environment?: string | null; lab?: number; status?: string; allowlist?: string[]; createdAt?: string } = {},
) {
  const id = randomUUID();
  await db.query(
    `INSERT INTO lab_accounts (id, team_id, environment, lab_id, status, delegated_flow, provider_account_id, account_name, team_id_allowlist, created_at)
     VALUES ($1, $2, $3, $4, $5, 'not_delegated', $6, $6, $7, $8)`,
    [
      id,
      fields.team === undefined ? null : (fields.team?.teamId ?? null),
      fields.environment === undefined ? null : fields.environment,
      fields.lab ?? 1,
      fields.status ?? 'active',
      name,
      fields.allowlist ?? [],
      fields.createdAt ?? '2026-01-01T00:00:00Z',
    ],
  );
  return id;
}

it("a team sees its own accounts, then the platform's open to all or naming it; never another team's", async () => {
  await account('own-lab2', { team: mine, lab: 2 });
  await account('own-lab1', { team: mine, lab: 1 });
  await account('their-own', { team: theirs });
  await account('platform-open', { lab: 1 });
  await account('platform-allowlisted', { lab: 1, allowlist: [mine.teamId], createdAt: '2026-01-02T00:00:00Z' });
  await account('platform-for-them', { lab: 1, allowlist: [theirs.teamId], createdAt: '2026-01-02T12:00:00Z' });
  await account('platform-production-only', { environment: 'production', createdAt: '2026-01-03T00:00:00Z' });
  await account('own-sandbox', { team: mine, lab: 3, environment: 'sandbox' });

  const names = async (of: Team, filters = {}, environment: 'sandbox' | 'production' = 'sandbox') =>
    (await repo.listVisible({ teamId: of.teamId, environment }, filters)).map((item) => item.accountName);
  expect(await names(mine)).toEqual(['own-lab1', 'own-lab2', 'own-sandbox', 'platform-open', 'platform-allowlisted']);
  expect(await names(theirs)).toEqual(['their-own', 'platform-open', 'platform-for-them']);
  expect(await names(mine, {}, 'production')).toEqual(['own-lab1', 'own-lab2', 'platform-open', 'platform-allowlisted', 'platform-production-only']);
});

it('narrows by lab, status and id; an id of another team is not found; a lab id out of range matches nothing', async () => {
  const suspended = await account('own-suspended', { team: mine, lab: 4, status: 'suspended' });
  await account('own-active', { team: mine, lab: 4, createdAt: '2026-01-05T00:00:00Z' });
  const theirsId = await account('their-lab4', { team: theirs, lab: 4 });
  const scope = { teamId: mine.teamId, environment: 'sandbox' as const };
  expect((await repo.listVisible(scope, { labId: 4 })).map((item) => item.accountName)).toEqual(['own-suspended', 'own-active']);
  expect((await repo.listVisible(scope, { labId: 4, status: 'suspended' as never })).map((item) => item.id)).toEqual([suspended]);
  expect((await repo.findVisible(scope, suspended))?.accountName).toBe('own-suspended');
  expect(await repo.findVisible(scope, theirsId)).toBeNull();
  expect(await repo.listVisible(scope, { labId: 2 ** 31 })).toEqual([]);
});
