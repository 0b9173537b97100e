import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's `fallback_birth_date` is a birth date (PHI): sealed with the PHI key like every other
 * copy, in `fallback_birth_date_enc` (PhiCipher's `v1.…` of the `{value, source_slug, updated_at}`
 * object). `fallback_birth_date` keeps the plaintext ones written before this migration: read
 * while they last, cleared by the next write of the user, and sealed all at once by
 * `labflow phi rekey` (which needs the key this migration has not got).
 */
export class UserBirthDatesSealed1763790411000 implements MigrationInterface {
  name = 'UserBirthDatesSealed1763790411000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE users ADD COLUMN fallback_birth_date_enc text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE users DROP COLUMN fallback_birth_date_enc`);
  }
}
