import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a real provider granted at sign-in (OAuth access and refresh tokens), encrypted with the
 * PHI key: whoever holds them reads the user's health data at the provider. Null for sandbox and
 * push connections, which need none. Kept beside the connection so it goes with it (deregistered,
 * user erased) and read only by the sync that uses it, never by the views.
 */
export class ConnectionCredentials1763790350000 implements MigrationInterface {
  name = 'ConnectionCredentials1763790350000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE provider_connections ADD COLUMN credentials_enc text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE provider_connections DROP COLUMN credentials_enc`);
  }
}
