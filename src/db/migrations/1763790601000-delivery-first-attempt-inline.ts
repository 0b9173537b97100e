import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery's first attempt, when it succeeds, is written on the delivery row (the statement
 * that marks the delivery succeeded writes it anyway) instead of as a row of
 * `event_delivery_attempts`: one row version and three index entries less for nearly every
 * delivery. The attempt listings read these columns as attempt 1 (DeliveryLogRepository).
 * Any other attempt — failed, interrupted, a retry — still has its row. `first_attempt_at` is the
 * attempt's claim time (its `created_at` in the listing); the index serves the endpoint's
 * attempt listing, newest first, beside `event_delivery_attempts_endpoint`.
 */
export class DeliveryFirstAttemptInline1763790601000 implements MigrationInterface {
  name = 'DeliveryFirstAttemptInline1763790601000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE event_deliveries
         ADD COLUMN first_attempt_at timestamptz,
         ADD COLUMN first_attempt_finished_at timestamptz,
         ADD COLUMN first_attempt_trigger text CHECK (first_attempt_trigger IN ('scheduled', 'manual')),
         ADD COLUMN first_attempt_url text,
         ADD COLUMN first_attempt_status_code int,
         ADD COLUMN first_attempt_latency_ms int,
         ADD COLUMN first_attempt_response_enc text`,
    );
    await db.query(
      `CREATE INDEX event_deliveries_first_attempt ON event_deliveries (endpoint_id, first_attempt_at, id)
        WHERE first_attempt_at IS NOT NULL AND endpoint_id IS NOT NULL`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    // The inline attempts become rows again, so nothing is lost going back.
    await db.query(
      `INSERT INTO event_delivery_attempts
              (id, delivery_id, event_id, endpoint_id, pipeline_id, attempt_number, trigger, status, target, url,
               response_status_code, response_excerpt_enc, latency_ms, created_at, finished_at)
       SELECT gen_random_uuid(), id, event_id, endpoint_id, pipeline_id, 1, first_attempt_trigger, 'succeeded', target, first_attempt_url,
              first_attempt_status_code, first_attempt_response_enc, first_attempt_latency_ms, first_attempt_at, first_attempt_finished_at
         FROM event_deliveries WHERE first_attempt_at IS NOT NULL
       ON CONFLICT (delivery_id, attempt_number) DO NOTHING`,
    );
    await db.query(`DROP INDEX event_deliveries_first_attempt`);
    await db.query(
      `ALTER TABLE event_deliveries
         DROP COLUMN first_attempt_at, DROP COLUMN first_attempt_finished_at, DROP COLUMN first_attempt_trigger,
         DROP COLUMN first_attempt_url, DROP COLUMN first_attempt_status_code, DROP COLUMN first_attempt_latency_ms,
         DROP COLUMN first_attempt_response_enc`,
    );
  }
}
