import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A Link Migration operation's count of processed users is written on its row when it ends, so
 * that its users' rows (`link_bulk_op_items`, one per user: 100,000 for a large import) can be
 * deleted by the retention sweeper once the operation is past `LINK_BULK_OP_RETENTION`, while
 * `GET /v2/link/bulk_op` still answers its counts — and the listing reads one column per ended
 * operation instead of counting its users on every page.
 */
export class LinkBulkOpCounts1763790370000 implements MigrationInterface {
  name = 'LinkBulkOpCounts1763790370000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE link_bulk_ops ADD COLUMN processed_count int`);
    await db.query(`
      UPDATE link_bulk_ops o SET processed_count = (SELECT count(*) FROM link_bulk_op_items i WHERE i.op_id = o.id AND i.outcome IS NOT NULL)
       WHERE o.status <> 'in_progress'`);
    await db.query(`ALTER TABLE link_bulk_ops ADD CONSTRAINT link_bulk_ops_counted CHECK ((status = 'in_progress') = (processed_count IS NULL))`);
    await db.query(`CREATE INDEX link_bulk_ops_ended ON link_bulk_ops (ended_at) WHERE ended_at IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP INDEX link_bulk_ops_ended');
    await db.query('ALTER TABLE link_bulk_ops DROP CONSTRAINT link_bulk_ops_counted');
    await db.query('ALTER TABLE link_bulk_ops DROP COLUMN processed_count');
  }
}
