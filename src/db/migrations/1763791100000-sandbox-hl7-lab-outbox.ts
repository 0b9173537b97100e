import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sandbox HL7 lab's outbox: the status and result messages it owes labflow, one row per order
 * and result status (P preliminary, F final), due at `due_at`, deleted once labflow ACKed AA. This
 * is the sandbox partner's state, not labflow's: a real lab keeps its own (the sandbox lab shares
 * the database only because it is deployed beside labflow). It lets the sandbox lab be killed
 * and restarted without losing what it owed. The order message it answers is sealed (PHI).
 */
export class SandboxHl7LabOutbox1763791100000 implements MigrationInterface {
  name = 'SandboxHl7LabOutbox1763791100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE sandbox_hl7_lab_outbox (
        order_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('P', 'F')),
        order_message_enc text NOT NULL,
        due_at timestamptz NOT NULL,
        backoff_ms integer NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (order_id, status)
      )`);
    await db.query(`CREATE INDEX sandbox_hl7_lab_outbox_due_at ON sandbox_hl7_lab_outbox (due_at)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE sandbox_hl7_lab_outbox`);
  }
}
