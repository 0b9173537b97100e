import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Link tokens (`POST /v2/link/token`): what a team's user may connect through the hosted Link
 * flow, for ten minutes, once. Only a SHA-256 of the token is kept (it is a bearer credential, as
 * an API key is); the OAuth `state` of a flow under way likewise. `mfa_*` hold a password
 * provider's pending second factor (never the password).
 */
export class LinkTokens1763790330000 implements MigrationInterface {
  name = 'LinkTokens1763790330000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE link_tokens (
        id uuid PRIMARY KEY,
        token_hash text NOT NULL UNIQUE,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        region text NOT NULL,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        provider text,
        filter_on_providers text[],
        redirect_url text,
        on_error text,
        on_close text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'pending_provider_mfa', 'success', 'error')),
        chosen_provider text,
        oauth_state_hash text UNIQUE,
        mfa_method text,
        mfa_hint text,
        mfa_challenge text,
        error_type text,
        error text,
        connected_at timestamptz
      )`);
    await db.query('CREATE INDEX link_tokens_user ON link_tokens (user_id)');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE link_tokens');
  }
}
