import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenancy (orgs, teams, keys), users, insurance, payors and the PHI audit log. */
export class Foundation1763790000000 implements MigrationInterface {
  name = 'Foundation1763790000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE orgs (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        plan text NOT NULL CHECK (plan IN ('launch', 'grow', 'scale')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE teams (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        name text NOT NULL,
        region text NOT NULL CHECK (region IN ('us', 'eu')),
        integration_team_id text,
        partial_webhooks_enabled boolean NOT NULL DEFAULT false,
        created_on timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX teams_org_created ON teams (org_id, created_on, id)`);
    await db.query(
      `CREATE UNIQUE INDEX teams_org_integration_team_id ON teams (org_id, integration_team_id)
         WHERE integration_team_id IS NOT NULL`,
    );
    await db.query(`
      CREATE TABLE team_api_keys (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        region text NOT NULL CHECK (region IN ('us', 'eu')),
        label text NOT NULL,
        key_hash bytea NOT NULL UNIQUE,
        key_prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await db.query(`CREATE INDEX team_api_keys_team ON team_api_keys (team_id, environment, region)`);
    await db.query(`
      CREATE TABLE management_keys (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        label text NOT NULL,
        role text NOT NULL CHECK (role IN ('org_admin', 'team_admin')),
        team_ids uuid[] NOT NULL DEFAULT '{}',
        key_hash bytea NOT NULL UNIQUE,
        key_prefix text NOT NULL,
        creator_key_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await db.query(`CREATE INDEX management_keys_org ON management_keys (org_id)`);

    await db.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        client_user_id text NOT NULL,
        created_on timestamptz NOT NULL DEFAULT now(),
        fallback_time_zone jsonb,
        fallback_birth_date jsonb,
        ingestion_start date,
        ingestion_end date,
        deletion_requested_at timestamptz,
        CHECK (ingestion_start IS NULL OR ingestion_end IS NULL OR ingestion_start <= ingestion_end)
      )`);
    // A user in its deletion grace period frees its client_user_id for a new user.
    await db.query(
      `CREATE UNIQUE INDEX users_live_client_user_id ON users (team_id, environment, client_user_id)
         WHERE deletion_requested_at IS NULL`,
    );
    await db.query(`CREATE INDEX users_team_created ON users (team_id, environment, created_on, id)`);

    await db.query(`
      CREATE TABLE payors (
        code text PRIMARY KEY,
        name text NOT NULL,
        address jsonb NOT NULL
      )`);
    await db.query(`
      CREATE TABLE insurances (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        payor_code text NOT NULL REFERENCES payors(code),
        relationship text NOT NULL,
        is_primary boolean NOT NULL,
        group_id text,
        member_id_enc text NOT NULL,
        insured_enc text NOT NULL,
        guarantor_enc text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX insurances_user_latest ON insurances (user_id, is_primary, created_at DESC)`);

    await db.query(`
      CREATE TABLE phi_access_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        team_id uuid NOT NULL,
        api_key_id uuid,
        action text NOT NULL CHECK (action IN ('read', 'write')),
        resource text NOT NULL,
        resource_id uuid NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX phi_access_log_team_at ON phi_access_log (team_id, at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['phi_access_log', 'insurances', 'payors', 'users', 'management_keys', 'team_api_keys', 'teams', 'orgs']) {
      await db.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
