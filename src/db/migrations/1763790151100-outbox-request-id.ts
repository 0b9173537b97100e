import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `event_outbox.request_id`: the id of the HTTP request an event goes back to (the request that
 * wrote it, or the one behind the workflow whose activity did), so the webhook delivery log
 * lines name it. Null for events no request caused (timers, the reconciler, older rows).
 */
export class OutboxRequestId1763790151100 implements MigrationInterface {
  name = 'OutboxRequestId1763790151100';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_outbox ADD COLUMN request_id text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_outbox DROP COLUMN request_id`);
  }
}
