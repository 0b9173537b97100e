import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The partner webhook reports labflow took, by the sender's event id (`event_id` of a courier,
 * lab or appointment-provider webhook): a resent report with an id already here is answered as
 * the first was and changes nothing. The row is written in the transaction that applies the
 * report, so a report is recorded exactly when it was applied. Kept 30 days (retention sweeper).
 */
export class PartnerWebhookReceipts1763790800000 implements MigrationInterface {
  name = 'PartnerWebhookReceipts1763790800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE partner_webhook_receipts (
        kind text NOT NULL,
        partner text NOT NULL,
        event_id text NOT NULL,
        answer jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (kind, partner, event_id)
      )`);
    await db.query(`CREATE INDEX partner_webhook_receipts_created_at ON partner_webhook_receipts (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE partner_webhook_receipts`);
  }
}
