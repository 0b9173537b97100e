import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Connections whose data the user's phone or app pushes (`POST /v2/link/provider/manual/{provider}`:
 * Apple HealthKit, Health Connect, Bluetooth meters, manual entry). labflow pulls nothing for
 * them, so they have no workflow: `kind` tells them apart. `external_user_id`: the provider's id
 * of the user, when the team gives one.
 */
export class PushConnections1763790340000 implements MigrationInterface {
  name = 'PushConnections1763790340000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE provider_connections ADD COLUMN kind text NOT NULL DEFAULT 'pull' CHECK (kind IN ('pull', 'push'))`);
    await db.query(`ALTER TABLE provider_connections ADD COLUMN external_user_id text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE provider_connections DROP COLUMN external_user_id, DROP COLUMN kind`);
  }
}
