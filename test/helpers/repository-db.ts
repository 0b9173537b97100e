import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/db/data-source';
import { createScratchDatabase } from './scratch-database';

/**
 * The repository tier's database: a repository constructed on a plain DataSource, fixtures
 * written in SQL, no app, no HTTP, no Temporal.
 *
 * `testDatabase` is the migrated test database (DATABASE_URL) that other files use at the same
 * time: a file on it scopes every row it writes to teams of its own. A file whose statements are
 * not scoped (a relay claim over all teams, a retention sweep, dropping partitions) takes
 * `migratedScratchDatabase`: a database of its own, migrated, dropped afterwards.
 */
export async function testDatabase(poolMax = 4): Promise<DataSource> {
  const db = createDataSource(process.env.DATABASE_URL as string, poolMax);
  await db.initialize();
  return db;
}

export async function migratedScratchDatabase(prefix: string, poolMax = 4): Promise<{ db: DataSource; drop(): Promise<void> }> {
  const scratch = await createScratchDatabase(prefix);
  const db = createDataSource(scratch.url, poolMax);
  await db.initialize();
  await db.runMigrations();
  return {
    db,
    async drop() {
      if (db.isInitialized) await db.destroy();
      await scratch.drop();
    },
  };
}

export interface Team {
  orgId: string;
  teamId: string;
}

/** A new org with one team (region `us` unless told). */
export async function createTeam(db: DataSource, region = 'us'): Promise<Team> {
  const orgId = randomUUID();
  const teamId = randomUUID();
  await db.query(`INSERT INTO orgs (id, name, plan) VALUES ($1, $2, 'scale')`, [orgId, `org-${orgId.slice(0, 8)}`]);
  await db.query(`INSERT INTO teams (id, org_id, name, region) VALUES ($1, $2, $3, $4)`, [teamId, orgId, `team-${teamId.slice(0, 8)}`, region]);
  return { orgId, teamId };
}

/** A sandbox user of the team; answers its id. */
export async function createUser(db: DataSource, teamId: string, clientUserId = `client-${randomUUID()}`): Promise<string> {
  const id = randomUUID();
  await db.query(`INSERT INTO users (id, team_id, environment, client_user_id) VALUES ($1, $2, 'sandbox', $3)`, [id, teamId, clientUserId]);
  return id;
}

/** Removes the teams' orgs (and with them, by cascade, what hangs off their teams). */
export async function dropTeams(db: DataSource, teams: Team[]): Promise<void> {
  if (teams.length === 0) return;
  await db.query(`DELETE FROM orgs WHERE id = ANY($1::uuid[])`, [teams.map((team) => team.orgId)]);
}

export interface OrderFixture {
  id?: string;
  userId?: string;
  environment?: string;
  status?: string;
  lowLevelStatus?: string;
  collectionMethod?: string;
  createdAt?: string;
  updatedAt?: string;
  activateBy?: string | null;
  interpretation?: string | null;
  sampleId?: string | null;
}

/**
 * An order of the team (a new user of its own unless given), on the seeded Lipid Panel test kit
 * and its platform lab account, in its own transaction; answers its id.
 */
export async function createOrder(db: DataSource, teamId: string, fixture: OrderFixture = {}): Promise<string> {
  const id = fixture.id ?? randomUUID();
  const userId = fixture.userId ?? (await createUser(db, teamId));
  const transactionId = randomUUID();
  const createdAt = fixture.createdAt ?? new Date().toISOString();
  await db.query(`INSERT INTO order_transactions (id, team_id, status, created_at, updated_at) VALUES ($1, $2, 'active', $3, $3)`, [
    transactionId,
    teamId,
    createdAt,
  ]);
  await db.query(
    `INSERT INTO orders (id, team_id, environment, user_id, lab_test_id, lab_id, lab_account_id, collection_method, flow, status, low_level_status,
                         order_transaction_id, activate_by, interpretation, sample_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, '1ab7e570-0000-4000-8000-000000000001', 5, '1ab0acc0-0000-4000-8000-000000000005', $5, 'standard', $6, $7,
             $8, $9, $10, $11, $12, $13)`,
    [
      id,
      teamId,
      fixture.environment ?? 'sandbox',
      userId,
      fixture.collectionMethod ?? 'testkit',
      fixture.status ?? 'received',
      fixture.lowLevelStatus ?? 'ordered',
      transactionId,
      fixture.activateBy ?? null,
      fixture.interpretation ?? null,
      fixture.sampleId ?? null,
      createdAt,
      fixture.updatedAt ?? createdAt,
    ],
  );
  return id;
}
