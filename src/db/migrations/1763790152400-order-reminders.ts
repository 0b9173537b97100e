import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Patient reminders (src/reminders, workflows/order/reminders.ts).
 *
 * - `order_reminders`: one row per reminder an order's workflow sent or tried to send, keyed by
 *   the order and the reminder's key (`<kind>:<sequence>`, or for an upcoming appointment its id,
 *   start and offset): a retried activity finds its row and sends nothing twice. `status`:
 *   `sending` until it went out (`sent`, with its channel) or was `skipped` for a business reason
 *   (`reason`); `attempts` and `last_error` record failed sends. `link_url` is the portal
 *   communications link made for it, kept so that a retry sends the same link.
 * - `teams.lab_tests_patient_reminders_enabled`: a team may turn reminders off (management API);
 *   on by default. The Junction e-mail and SMS communication flags choose the channels.
 */
export class OrderReminders1763790152400 implements MigrationInterface {
  name = 'OrderReminders1763790152400';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE order_reminders (
        order_id uuid NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
        reminder_key text NOT NULL,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('book_appointment', 'upcoming_appointment', 'kit_return')),
        sequence integer NOT NULL,
        status text NOT NULL DEFAULT 'sending' CHECK (status IN ('sending', 'sent', 'skipped')),
        channel text CHECK (channel IN ('email', 'sms')),
        reason text,
        link_url text,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        sent_at timestamptz,
        PRIMARY KEY (order_id, reminder_key)
      )`);
    await db.query(`ALTER TABLE teams ADD COLUMN lab_tests_patient_reminders_enabled boolean NOT NULL DEFAULT true`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE teams DROP COLUMN lab_tests_patient_reminders_enabled`);
    await db.query(`DROP TABLE order_reminders`);
  }
}
