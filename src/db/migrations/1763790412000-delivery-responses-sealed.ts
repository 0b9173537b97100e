import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a webhook endpoint answered (its first 1,000 characters) is sealed with the PHI key: an
 * endpoint that echoes the request, or an error page quoting it, would otherwise keep the
 * payload's patient in clear. `response_excerpt` keeps the excerpts recorded before this
 * migration (read while they last, like the rest of the attempt log).
 */
export class DeliveryResponsesSealed1763790412000 implements MigrationInterface {
  name = 'DeliveryResponsesSealed1763790412000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_delivery_attempts ADD COLUMN response_excerpt_enc text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_delivery_attempts DROP COLUMN response_excerpt_enc`);
  }
}
