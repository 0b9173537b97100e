import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `x-idempotency-key` on Link Migration's background operations (bulk import, bulk historical
 * pull): a key names the operation its first request made, per team and environment. The key row
 * is written first in the transaction that writes the operation and starts its workflow (the
 * reference to the operation is checked at commit), so a request that failed leaves its key
 * unused, and a concurrent repeat waits for the first to end before it finds the key taken.
 */
export class LinkBulkOpKeys1763790380000 implements MigrationInterface {
  name = 'LinkBulkOpKeys1763790380000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE link_bulk_op_keys (
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL,
        key text NOT NULL,
        request_hash text NOT NULL,
        op_id uuid NOT NULL REFERENCES link_bulk_ops(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (team_id, environment, key)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE link_bulk_op_keys');
  }
}
