import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The mobile SDKs' sign-in (src/mobile, docs/mobile.md), link codes and source priorities.
 *
 * - `sdk_signing_keys`: the RS256 keys labflow signs sign-in and access tokens with, the private
 *   key sealed by PhiCipher (never in clear at rest), the public one as a JWK for the JWKS. The
 *   newest is the current one; older ones verify what they signed until it has expired.
 * - `user_sign_in_tokens`: each sign-in token minted (its `jti`), so that it is exchanged once and
 *   revoking a user's sign-in refuses the ones not yet exchanged.
 * - `user_sdk_sessions`: a signed-in SDK installation. Access tokens name it (`sid`) and are
 *   refused once it is revoked or its user pending deletion; the refresh token is kept as a
 *   SHA-256 only, and replaced at each refresh.
 * - `link_codes`: `POST /v2/link/code/create`'s codes (SHA-256 only), exchanged once for a
 *   sign-in token.
 * - `team_source_priorities`: which provider wins when two report the same data type.
 */
export class MobileSignIn1763790750000 implements MigrationInterface {
  name = 'MobileSignIn1763790750000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE sdk_signing_keys (
        kid text PRIMARY KEY,
        private_key_enc text NOT NULL,
        public_jwk jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`
      CREATE TABLE user_sign_in_tokens (
        jti uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await db.query('CREATE INDEX user_sign_in_tokens_user ON user_sign_in_tokens (user_id)');
    await db.query(`
      CREATE TABLE user_sdk_sessions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        refresh_token_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        refreshed_at timestamptz,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz
      )`);
    await db.query('CREATE INDEX user_sdk_sessions_user ON user_sdk_sessions (user_id)');
    await db.query(`
      CREATE TABLE link_codes (
        code_hash text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await db.query('CREATE INDEX link_codes_user ON link_codes (user_id)');
    await db.query(`
      CREATE TABLE team_source_priorities (
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        data_type text NOT NULL,
        provider text NOT NULL,
        priority integer NOT NULL CHECK (priority >= 1),
        PRIMARY KEY (team_id, environment, data_type, provider)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE team_source_priorities');
    await db.query('DROP TABLE link_codes');
    await db.query('DROP TABLE user_sdk_sessions');
    await db.query('DROP TABLE user_sign_in_tokens');
    await db.query('DROP TABLE sdk_signing_keys');
  }
}
