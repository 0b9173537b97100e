import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The hosted webhook portal's launch URLs and sessions, so a team can revoke them
 * (src/management/webhooks/webhook-portal-sessions.repository.ts): one row per URL
 * `GET /v2/team/svix/url` signs (`id` = the nonce its token names), opened once (`opened_at`,
 * replacing the Redis claim) into the session its cookie names until `expires_at`, and refused
 * from `revoked_at` on. Rows are kept a day past their end, then deleted as new URLs are signed.
 */
export class WebhookPortalSessions1763791750000 implements MigrationInterface {
  name = 'WebhookPortalSessions1763791750000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_portal_sessions (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        opened_at timestamptz,
        revoked_at timestamptz
      )`);
    await db.query(`CREATE INDEX webhook_portal_sessions_live ON webhook_portal_sessions (team_id, environment) WHERE revoked_at IS NULL`);
    await db.query(`CREATE INDEX webhook_portal_sessions_expiry ON webhook_portal_sessions (expires_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE webhook_portal_sessions');
  }
}
