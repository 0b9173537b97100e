import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Connected data sources (src/connections): one row per (user, provider) while connected; each
 * has its workflow `connection:<user_id>:<provider>`. `id` is new on every connect, so the
 * workflow of an earlier, deregistered connection recognises it is no longer current. `seed`
 * makes a sandbox source's data the same on every sync of the same window. Rows go with their
 * user (erasure) and team.
 */
export class ProviderConnections1763790170000 implements MigrationInterface {
  name = 'ProviderConnections1763790170000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE provider_connections (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        region text NOT NULL,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        provider text NOT NULL,
        seed text NOT NULL,
        status text NOT NULL DEFAULT 'connected' CHECK (status IN ('connected', 'error')),
        created_at timestamptz NOT NULL DEFAULT now(),
        backfilled_at timestamptz,
        last_synced_at timestamptz,
        UNIQUE (user_id, provider)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE provider_connections');
  }
}
