import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An attempt's row in `event_delivery_attempts` is written once, with its outcome (it was
 * inserted `sending` at claim and updated at finish: two row writes per attempt). What the claim
 * needs to know about an attempt whose outcome is not recorded yet moves to the delivery:
 *
 * - `event_deliveries.unfinished_trigger`: set by the claim to the trigger of attempt number
 *   `attempt_count` (`scheduled` or `manual`), cleared when its outcome is written; NULL when
 *   every attempt is recorded. While set and `last_attempt_at` is within the lease, the attempt is
 *   in flight; set after the lease, its worker died, and the next claim writes it `interrupted`
 *   with this trigger. Outside every index, so the claim's update of the delivery can stay HOT.
 *
 * `(delivery_id, attempt_number)` is unique already (1763790003000): a worker that was slow, not
 * dead, replaces its attempt's `interrupted` row with the outcome.
 *
 * Deliveries whose latest attempt is still `sending` (in flight during the upgrade, or a dead
 * worker's) get that attempt's trigger, so the lease still holds them and the next claim after
 * it marks the row `interrupted` — unless its outcome was written first. Only those
 * deliveries are written.
 */
export class DeliveryUnfinishedAttempt1763790200000 implements MigrationInterface {
  name = 'DeliveryUnfinishedAttempt1763790200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_deliveries ADD COLUMN unfinished_trigger text CHECK (unfinished_trigger IN ('scheduled', 'manual'))`);
    await db.query(`
      UPDATE event_deliveries d SET unfinished_trigger = a.trigger
        FROM event_delivery_attempts a
       WHERE a.delivery_id = d.id AND a.attempt_number = d.attempt_count AND a.status = 'sending'`);
  }

  async down(db: QueryRunner): Promise<void> {
    // Attempts in flight get back the `sending` row the previous version's claim expects to find.
    await db.query(`
      INSERT INTO event_delivery_attempts (id, delivery_id, event_id, endpoint_id, pipeline_id, attempt_number, trigger, status, target, url, created_at)
      SELECT gen_random_uuid(), d.id, d.event_id, d.endpoint_id, d.pipeline_id, d.attempt_count, d.unfinished_trigger, 'sending', d.target, e.url, d.last_attempt_at
        FROM event_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.unfinished_trigger IS NOT NULL
      ON CONFLICT (delivery_id, attempt_number) DO NOTHING`);
    await db.query(`ALTER TABLE event_deliveries DROP COLUMN unfinished_trigger`);
  }
}
