import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every API replica keeps the team API keys it verified in memory for a while (TeamKeyCache);
 * this trigger tells them all at once when one stops being valid. A team API key whose
 * `revoked_at` is set, or whose row is deleted (a team or org deleted), sends
 * `NOTIFY labflow_team_key_revoked, '<hex sha256 of the key>'`, delivered when the revoking
 * transaction commits, whichever code path (management API, ops CLI, SQL by hand) revoked it.
 */
export class ApiKeyRevocationNotify1763790152000 implements MigrationInterface {
  name = 'ApiKeyRevocationNotify1763790152000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE FUNCTION labflow_notify_team_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('labflow_team_key_revoked', encode(OLD.key_hash, 'hex'));
        RETURN NULL;
      END $$`);
    await db.query(`
      CREATE TRIGGER team_api_keys_revoked AFTER UPDATE OF revoked_at ON team_api_keys
      FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL)
      EXECUTE FUNCTION labflow_notify_team_key_revoked()`);
    await db.query(`
      CREATE TRIGGER team_api_keys_deleted AFTER DELETE ON team_api_keys
      FOR EACH ROW EXECUTE FUNCTION labflow_notify_team_key_revoked()`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TRIGGER team_api_keys_deleted ON team_api_keys`);
    await db.query(`DROP TRIGGER team_api_keys_revoked ON team_api_keys`);
    await db.query(`DROP FUNCTION labflow_notify_team_key_revoked()`);
  }
}
