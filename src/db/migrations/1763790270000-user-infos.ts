import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's demographics (`PATCH /v2/user/{user_id}/info`, Junction's UserInfo): one row per user,
 * replaced by each upsert, encrypted as PHI, deleted with the user.
 */
export class UserInfos1763790270000 implements MigrationInterface {
  name = 'UserInfos1763790270000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE user_infos (
        user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        info_enc text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE user_infos`);
  }
}
