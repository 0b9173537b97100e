import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The patient portal (src/portal).
 *
 * - `portal_links`: one row per URL `POST /v2/user/{user_id}/create_portal_url` issued. A
 *   `launch` link is signed and single-use (`used_at` is set by the first open); a
 *   `communications` link is the short code of `/p/<code>`, long-lived and revocable
 *   (`revoked_at`). `order_id` is the optional deep link. The one-time code of a new device is
 *   kept here too, hashed (`otp_hash`, `otp_expires_at`); `otp_failures` counts wrong codes for
 *   the link's whole life and `otp_sends` the codes sent, so neither can be reset by asking again.
 * - `portal_sessions`: every portal session, how it began (`launch`, `code` or a remembered
 *   `device`): the audit of who opened the portal, beside the PHI reads in phi_access_log.
 */
export class Portal1763790140000 implements MigrationInterface {
  name = 'Portal1763790140000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE portal_links (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        order_id uuid REFERENCES orders(id) ON DELETE CASCADE,
        context text NOT NULL CHECK (context IN ('launch', 'communications')),
        code text UNIQUE,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        revoked_at timestamptz,
        otp_hash bytea,
        otp_channel text CHECK (otp_channel IN ('email', 'sms')),
        otp_expires_at timestamptz,
        otp_failures integer NOT NULL DEFAULT 0,
        otp_sends integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK ((context = 'communications') = (code IS NOT NULL))
      )`);
    await db.query(`CREATE INDEX portal_links_user ON portal_links (user_id, created_at)`);
    await db.query(`
      CREATE TABLE portal_sessions (
        id uuid PRIMARY KEY,
        link_id uuid NOT NULL REFERENCES portal_links(id) ON DELETE CASCADE,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        began_by text NOT NULL CHECK (began_by IN ('launch', 'code', 'device')),
        started_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL,
        ended_at timestamptz
      )`);
    await db.query(`CREATE INDEX portal_sessions_link ON portal_sessions (link_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE portal_sessions`);
    await db.query(`DROP TABLE portal_links`);
  }
}
