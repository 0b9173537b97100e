import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A provider's webhook names the account that changed by the provider's own user id: its
 * connections are found by (provider, external_user_id) rather than by reading them all.
 */
export class ConnectionExternalUsers1763790390000 implements MigrationInterface {
  name = 'ConnectionExternalUsers1763790390000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX provider_connections_external_user ON provider_connections (provider, external_user_id) WHERE external_user_id IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX provider_connections_external_user');
  }
}
