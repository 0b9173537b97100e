import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `event_deliveries` pages are filled to 40% by inserts, so the claim of an attempt (which writes
 * only columns outside every index) finds room for its new row version on the same page: a HOT
 * update, no index entry. A delivery's row has three versions on its page before pruning (insert,
 * claim, outcome: heap_update keeps a non-HOT version on the same page when it fits), so with
 * full pages only about a fifth of claims were HOT (bench/webhooks/writes.ts: 0.21 of 1 claim a
 * delivery), with fillfactor 70 half, 50: 0.90, 40: all; each other claim added an entry to the
 * four indexes that cover a webhook delivery. The table is the short-lived part of the delivery
 * log, so its being 2.5 times larger per live row costs little. Applies to pages filled from now on.
 */
export class DeliveryFillfactor1763790600000 implements MigrationInterface {
  name = 'DeliveryFillfactor1763790600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_deliveries SET (fillfactor = 40)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_deliveries RESET (fillfactor)`);
  }
}
