import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C traceparent of what wrote an outbox event (a request, an activity), so its deliveries
 * are spans of the same trace. Null when tracing is off.
 */
export class OutboxTraceParent1763790150700 implements MigrationInterface {
  name = 'OutboxTraceParent1763790150700';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_outbox ADD COLUMN trace_parent text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_outbox DROP COLUMN trace_parent`);
  }
}
