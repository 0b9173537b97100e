import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Labs reached over HL7 v2 / MLLP (src/hl7): a lab account's interface settings, and every
 * message exchanged with such a lab, stored raw and sealed (it carries PHI). An inbound message
 * is unique per sending facility and control id (MSH-4, MSH-10): a repeat is found, not stored.
 */
export class Hl7Labs1763790420000 implements MigrationInterface {
  name = 'Hl7Labs1763790420000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE hl7_lab_interfaces (
        lab_account_id uuid PRIMARY KEY REFERENCES lab_accounts (id) ON DELETE CASCADE,
        host text NOT NULL,
        port integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
        tls jsonb,
        sending_application text NOT NULL,
        sending_facility text NOT NULL,
        receiving_application text NOT NULL,
        receiving_facility text NOT NULL,
        version text NOT NULL CHECK (version IN ('2.3', '2.5.1')),
        order_message_type text NOT NULL CHECK (order_message_type IN ('ORM^O01', 'OML^O21')),
        test_codes jsonb NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The lab's facility names it in the messages it sends (their MSH-4).
    await db.query(`CREATE UNIQUE INDEX hl7_lab_interfaces_lab_facility ON hl7_lab_interfaces (receiving_facility)`);
    await db.query(`
      CREATE TABLE hl7_messages (
        id uuid PRIMARY KEY,
        direction text NOT NULL CHECK (direction IN ('in', 'out')),
        peer_facility text NOT NULL,
        control_id text NOT NULL,
        message_type text NOT NULL,
        lab_account_id uuid,
        order_id uuid,
        filler_number text,
        state text NOT NULL,
        ack_code text,
        ack_text text,
        body_enc text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE UNIQUE INDEX hl7_messages_control_id ON hl7_messages (direction, peer_facility, control_id)`);
    await db.query(`CREATE INDEX hl7_messages_order ON hl7_messages (order_id, created_at) WHERE order_id IS NOT NULL`);
    await db.query(`CREATE INDEX hl7_messages_held ON hl7_messages (created_at) WHERE state = 'held'`);
    await db.query(`CREATE INDEX hl7_messages_filler ON hl7_messages (peer_facility, filler_number) WHERE filler_number IS NOT NULL AND order_id IS NOT NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE hl7_messages');
    await db.query('DROP TABLE hl7_lab_interfaces');
  }
}
