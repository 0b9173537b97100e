import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Appointments of walk-in and at-home phlebotomy orders (src/appointments, workflows/
 * appointment.ts):
 *
 * - `appointments`: one appointment of an order (`n` numbers them per order, as in the workflow
 *   id `order:<order_id>:appointment:<n>`). Only the appointment activities write it. The
 *   patient's address and the notes are PHI (encrypted, PhiCipher). `events` is the appointment's
 *   event list as the API shows it; `applied_changes` holds the ids of the changes already
 *   recorded, so a retried activity records nothing twice.
 * - `appointment_slot_reservations`: the seats an appointment holds in a provider's slot. A booking
 *   counts the seats of its slot under a transaction-scoped advisory lock, so two concurrent
 *   bookings of a slot's last seat cannot both win. Released when the appointment is cancelled or
 *   moved.
 * - `appointment_idempotency_keys`: `x-idempotency-key` of PSC bookings, kept 14 days: the key's
 *   request and the appointment it made, so a retry answers with that appointment.
 */
export class Appointments1763790005000 implements MigrationInterface {
  name = 'Appointments1763790005000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE appointments (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        n integer NOT NULL CHECK (n > 0),
        type text NOT NULL CHECK (type IN ('phlebotomy', 'patient_service_center')),
        provider text NOT NULL,
        provider_slug text NOT NULL,
        provider_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'reserved', 'confirmed', 'in_progress', 'completed', 'cancelled')),
        site text,
        location jsonb,
        address_enc text NOT NULL,
        start_at timestamptz,
        end_at timestamptz,
        iana_timezone text,
        appointment_notes_enc text,
        cancellation_reason_id text,
        async_confirmation boolean NOT NULL DEFAULT false,
        events jsonb NOT NULL DEFAULT '[]'::jsonb,
        applied_changes text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        UNIQUE (order_id, n)
      )`);
    await db.query(`CREATE INDEX appointments_order_latest ON appointments (order_id, n DESC)`);
    await db.query(`CREATE UNIQUE INDEX appointments_provider_id ON appointments (provider_slug, provider_id)`);

    await db.query(`
      CREATE TABLE appointment_slot_reservations (
        appointment_id uuid PRIMARY KEY REFERENCES appointments(id) ON DELETE CASCADE,
        provider_slug text NOT NULL,
        site text NOT NULL,
        start_at timestamptz NOT NULL
      )`);
    await db.query(`CREATE INDEX appointment_slot_reservations_slot ON appointment_slot_reservations (provider_slug, site, start_at)`);

    await db.query(`
      CREATE TABLE appointment_idempotency_keys (
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL,
        key text NOT NULL,
        order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
        request_hash text NOT NULL,
        appointment_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (team_id, environment, key)
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE appointment_idempotency_keys`);
    await db.query(`DROP TABLE appointment_slot_reservations`);
    await db.query(`DROP TABLE appointments`);
  }
}
