/**
 * Idempotent demo seed: one org on plan `scale`, one `us` team, a sandbox team API key and an
 * org_admin management key.
 *
 *   node dist/scripts/seed.js           (npm run seed; `npm run up` runs it for you)
 *
 * Keys are stored hashed, so their plaintext is kept in .labflow/demo-keys.json (mode 600,
 * gitignored) when they are issued. Later runs reuse them while they still authenticate and
 * issue (and record) new ones otherwise.
 */
import 'reflect-metadata';
import { existsSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { ApiKeysService } from '../src/auth/api-keys.service';
import { ConfigError, loadConfig } from '../src/config/config';
import { createDataSource } from '../src/db/data-source';
import { OrgEntity, TeamEntity } from '../src/tenancy/entities';
import { stateDir } from './state-dir';

export const DEMO_ORG_ID = '0d3e0000-0000-4000-8000-000000000001';
export const DEMO_TEAM_ID = '0d3e0000-0000-4000-8000-000000000002';
const DEMO_ORG_NAME = 'Demo Org';
const DEMO_TEAM_NAME = 'Demo Team';

export interface DemoKeysFile {
  org_id: string;
  team_id: string;
  team_api_key: string;
  management_key: string;
  updated_at: string;
}

type Outcome = 'created now' | 'reused';
type RowOutcome = 'created now' | 'already there';

/** Where `npm run seed` keeps the demo keys' plaintext. */
export const demoKeysPath = (): string => join(stateDir(), 'demo-keys.json');

/** The demo keys file as far as it can be read (nothing when missing or unreadable). */
export function readKeysFile(path: string = demoKeysPath()): Partial<DemoKeysFile> {
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Partial<DemoKeysFile>;
  } catch {
    return {};
  }
}

export async function ensureOrgAndTeam(db: DataSource): Promise<{ org: RowOutcome; team: RowOutcome; teamEntity: TeamEntity }> {
  const orgs = db.getRepository(OrgEntity);
  const teams = db.getRepository(TeamEntity);
  let org: RowOutcome = 'already there';
  let team: RowOutcome = 'already there';
  if (!(await orgs.findOneBy({ id: DEMO_ORG_ID }))) {
    await orgs.insert({ id: DEMO_ORG_ID, name: DEMO_ORG_NAME, plan: 'scale' });
    org = 'created now';
  }
  let teamEntity = await teams.findOneBy({ id: DEMO_TEAM_ID });
  if (!teamEntity) {
    await teams.insert({
      id: DEMO_TEAM_ID,
      orgId: DEMO_ORG_ID,
      name: DEMO_TEAM_NAME,
      region: 'us',
      integrationTeamId: null,
      partialWebhooksEnabled: false,
    });
    teamEntity = await teams.findOneByOrFail({ id: DEMO_TEAM_ID });
    team = 'created now';
  }
  return { org, team, teamEntity };
}

/**
 * Runs `work` on the demo org and team (made if missing) of DATABASE_URL's database (or
 * `databaseUrl`'s); seed, bootstrap and compose's demo patient share it.
 */
export async function withDemoOrgAndTeam<T>(
  work: (demo: Awaited<ReturnType<typeof ensureOrgAndTeam>> & { keys: ApiKeysService; db: DataSource }) => Promise<T>,
  databaseUrl: string = loadConfig().databaseUrl,
): Promise<T> {
  const db = createDataSource(databaseUrl);
  await db.initialize();
  try {
    return await work({ ...(await ensureOrgAndTeam(db)), keys: new ApiKeysService(db), db });
  } finally {
    await db.destroy();
  }
}

async function main(): Promise<void> {
  await withDemoOrgAndTeam(async ({ org, team, teamEntity, keys }) => {
    const dir = stateDir();
    const keysPath = demoKeysPath();
    const saved = readKeysFile(keysPath);

    let teamKey = saved.team_api_key;
    let teamKeyOutcome: Outcome = 'reused';
    const teamPrincipal = teamKey ? await keys.authenticateTeamKey(teamKey) : null;
    if (!teamKey || teamPrincipal?.teamId !== DEMO_TEAM_ID) {
      teamKey = (await keys.issueTeamKey(teamEntity, 'sandbox', 'demo (scripts/seed.ts)')).value;
      teamKeyOutcome = 'created now';
    }

    let managementKey = saved.management_key;
    let managementKeyOutcome: Outcome = 'reused';
    const managementPrincipal = managementKey ? await keys.authenticateManagementKey(managementKey) : null;
    if (!managementKey || managementPrincipal?.orgId !== DEMO_ORG_ID) {
      managementKey = (await keys.issueManagementKey(DEMO_ORG_ID, 'org_admin', 'demo (scripts/seed.ts)')).value;
      managementKeyOutcome = 'created now';
    }

    if (teamKeyOutcome === 'created now' || managementKeyOutcome === 'created now' || saved.org_id !== DEMO_ORG_ID) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file: DemoKeysFile = {
        org_id: DEMO_ORG_ID,
        team_id: DEMO_TEAM_ID,
        team_api_key: teamKey,
        management_key: managementKey,
        updated_at: new Date().toISOString(),
      };
      writeFileSync(keysPath, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      chmodSync(keysPath, 0o600);
    }

    console.log(`[labflow] demo org:        ${DEMO_ORG_ID} ('${DEMO_ORG_NAME}', plan scale; ${org})`);
    console.log(`[labflow] demo team:       ${DEMO_TEAM_ID} ('${DEMO_TEAM_NAME}', region us; ${team})`);
    console.log(`[labflow] team API key:    ${teamKey} (sandbox; ${teamKeyOutcome})`);
    console.log(`[labflow] management key:  ${managementKey} (org_admin; ${managementKeyOutcome})`);
    console.log(`[labflow] keys kept in ${keysPath}`);
  });
}

if (require.main === module) {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      console.error(`[labflow] ERROR: ${error.message}`);
    } else {
      console.error(`[labflow] ERROR: seeding failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    process.exit(1);
  });
}
