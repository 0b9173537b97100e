import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the retention sweeper (src/retention): it looks for relayed events and PSC booking
 * idempotency keys by age, across all teams. (`idempotency_keys` already has its created_at index.)
 */
export class Retention1763790007000 implements MigrationInterface {
  name = 'Retention1763790007000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX event_outbox_relayed_created ON event_outbox (created_at) WHERE relayed_at IS NOT NULL`);
    await db.query(`CREATE INDEX appointment_idempotency_keys_created ON appointment_idempotency_keys (created_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX appointment_idempotency_keys_created`);
    await db.query(`DROP INDEX event_outbox_relayed_created`);
  }
}
