import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The management interface: team settings (logo, brand, patient communication, per-environment
 * settings), org expiry, and the per-team resources the management API owns: webhook endpoints,
 * event destinations (ETL pipelines) and custom credentials. Secrets are stored encrypted
 * (`*_enc`, AES-256-GCM via PhiCipher); a custom credential's client_secret also keeps a SHA-256.
 */
export class Management1763790001000 implements MigrationInterface {
  name = 'Management1763790001000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE orgs ADD COLUMN expires_at timestamptz`);
    await db.query(`
      ALTER TABLE teams
        ADD COLUMN logo_url text,
        ADD COLUMN brand_information jsonb,
        ADD COLUMN lab_tests_patient_sms_communication_enabled boolean NOT NULL DEFAULT true,
        ADD COLUMN lab_tests_patient_email_communication_enabled boolean NOT NULL DEFAULT true,
        ADD COLUMN sandbox_settings jsonb NOT NULL DEFAULT '{}'::jsonb,
        ADD COLUMN production_settings jsonb NOT NULL DEFAULT '{}'::jsonb`);
    // "Keys bound to this team" (management key list filter, team deletion clean-up).
    await db.query(`CREATE INDEX management_keys_team_ids ON management_keys USING gin (team_ids)`);

    await db.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        url text NOT NULL,
        description text NOT NULL DEFAULT '',
        rate_limit integer CHECK (rate_limit IS NULL OR rate_limit > 0),
        disabled boolean NOT NULL DEFAULT false,
        filter_types text[],
        secret_enc text NOT NULL,
        previous_secret_enc text,
        previous_secret_expires_at timestamptz,
        headers_enc text,
        sensitive_headers text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX webhook_endpoints_team ON webhook_endpoints (team_id, environment, created_at, id)`);

    await db.query(`
      CREATE TABLE etl_pipelines (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        region text NOT NULL CHECK (region IN ('us', 'eu')),
        event_type_prefixes text[],
        preferred text NOT NULL CHECK (preferred IN ('rabbitmq', 'cloud_pubsub', 'azure_amqp')),
        enabled text[] NOT NULL,
        destinations_enc text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (team_id, environment, region)
      )`);
    await db.query(`CREATE INDEX etl_pipelines_scope ON etl_pipelines (environment, region, created_at, id)`);

    await db.query(`
      CREATE TABLE team_custom_credentials (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        region text NOT NULL CHECK (region IN ('us', 'eu')),
        provider text NOT NULL,
        client_id text,
        client_secret_enc text,
        client_secret_hash text,
        redirect_url_override text,
        details_enc text,
        source text NOT NULL DEFAULT 'custom',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (team_id, environment, region, provider)
      )`);
    await db.query(`CREATE INDEX team_custom_credentials_scope ON team_custom_credentials (environment, region, created_at, id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE IF EXISTS team_custom_credentials`);
    await db.query(`DROP TABLE IF EXISTS etl_pipelines`);
    await db.query(`DROP TABLE IF EXISTS webhook_endpoints`);
    await db.query(`DROP INDEX IF EXISTS management_keys_team_ids`);
    await db.query(`
      ALTER TABLE teams
        DROP COLUMN IF EXISTS logo_url,
        DROP COLUMN IF EXISTS brand_information,
        DROP COLUMN IF EXISTS lab_tests_patient_sms_communication_enabled,
        DROP COLUMN IF EXISTS lab_tests_patient_email_communication_enabled,
        DROP COLUMN IF EXISTS sandbox_settings,
        DROP COLUMN IF EXISTS production_settings`);
    await db.query(`ALTER TABLE orgs DROP COLUMN IF EXISTS expires_at`);
  }
}
