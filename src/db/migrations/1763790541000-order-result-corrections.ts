import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The lab reports applied to an order's stored results as corrections after it completed (an
 * HL7 lab's ORU with corrected observations, by its message id): a report is applied once, so a
 * lab's repeat or a redelivery sends no second corrected event.
 */
export class OrderResultCorrections1763790541000 implements MigrationInterface {
  name = 'OrderResultCorrections1763790541000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE order_results ADD COLUMN corrections text[] NOT NULL DEFAULT '{}'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE order_results DROP COLUMN corrections`);
  }
}
