import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `(delivery_id, attempt_number)` becomes the primary key of `event_delivery_attempts` (issue #42
 * item 4): it was already unique, and every write and read of an attempt row goes by it (the
 * claim's `interrupted` row and the outcome's `ON CONFLICT`, a delivery's attempts). The old
 * primary key on `id` goes: one index entry less per attempt row (failures, retries,
 * interruptions; a first attempt that succeeds has no row since 1763790601000). `id` stays a
 * column, still filled with a time-ordered id for each new row and never changed: it is the
 * attempt's id in the API (and the tie-break of the listing's keyset, through
 * `event_delivery_attempts_endpoint`), so the views of old and new attempts stay as they were.
 * Nothing looks an attempt up by `id` alone.
 *
 * The unique constraint's index cannot become the primary key in place, so the new one is built
 * (the table holds only attempts that were not a first success).
 */
export class DeliveryAttemptKey1763790700000 implements MigrationInterface {
  name = 'DeliveryAttemptKey1763790700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE event_delivery_attempts
         DROP CONSTRAINT event_delivery_attempts_pkey,
         DROP CONSTRAINT event_delivery_attempts_delivery_id_attempt_number_key,
         ADD CONSTRAINT event_delivery_attempts_pkey PRIMARY KEY (delivery_id, attempt_number)`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `ALTER TABLE event_delivery_attempts
         DROP CONSTRAINT event_delivery_attempts_pkey,
         ADD CONSTRAINT event_delivery_attempts_delivery_id_attempt_number_key UNIQUE (delivery_id, attempt_number),
         ADD CONSTRAINT event_delivery_attempts_pkey PRIMARY KEY (id)`,
    );
  }
}
