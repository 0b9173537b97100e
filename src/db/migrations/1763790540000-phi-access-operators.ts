import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An operator's PHI reads through the ops CLI (`labflow hl7 show`: a lab message's decrypted
 * body) are audited beside the API's: `actor` names the operator (the OS account and host the
 * CLI ran as); `team_id` may be null, for a message held from a platform lab account that no
 * team owns and that matched no order.
 */
export class PhiAccessOperators1763790540000 implements MigrationInterface {
  name = 'PhiAccessOperators1763790540000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE phi_access_log ALTER COLUMN team_id DROP NOT NULL`);
    await db.query(`ALTER TABLE phi_access_log ADD COLUMN actor text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE phi_access_log DROP COLUMN actor`);
    await db.query(`DELETE FROM phi_access_log WHERE team_id IS NULL`);
    await db.query(`ALTER TABLE phi_access_log ALTER COLUMN team_id SET NOT NULL`);
  }
}
