import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `event_deliveries` pages keep 30% free, so the claim of an attempt (which writes only columns
 * outside every index) can put the new row version on the same page: a HOT update, no index
 * entry. With full pages (fillfactor 100) only about a fifth of claims found room (bench/webhooks/writes.ts:
 * HOT 0.21 of 1 claim a delivery); the other claims added an entry to each of the table's four
 * indexes that cover a webhook delivery. The setting applies to pages filled from now on.
 */
export class DeliveryFillfactor1763790600000 implements MigrationInterface {
  name = 'DeliveryFillfactor1763790600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_deliveries SET (fillfactor = 70)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_deliveries RESET (fillfactor)`);
  }
}
