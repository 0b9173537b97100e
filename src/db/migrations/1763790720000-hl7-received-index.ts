import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The HL7 listener ACKs a message once it is stored and hands it to its order afterwards; a
 * sweep finds the messages still `received` (not handed over) to hand them over again.
 */
export class Hl7ReceivedIndex1763790720000 implements MigrationInterface {
  name = 'Hl7ReceivedIndex1763790720000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX hl7_messages_received ON hl7_messages (updated_at) WHERE direction = 'in' AND state = 'received'`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX hl7_messages_received`);
  }
}
