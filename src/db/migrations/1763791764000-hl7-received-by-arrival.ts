import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The messages still `received` by arrival (created_at, id), the order the HL7 hand-off and the
 * sweep claim them in, instead of by updated_at: a claim then reads the oldest rows of the index
 * and stops at its batch, where it read and sorted every received row (a backlog of thousands
 * made each claim cost as much as the backlog). updated_at, indexed by nothing now, no longer
 * keeps an update that only touches it from being a HOT update.
 */
export class Hl7ReceivedByArrival1763791764000 implements MigrationInterface {
  name = 'Hl7ReceivedByArrival1763791764000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX hl7_messages_received_by_arrival ON hl7_messages (created_at, id) WHERE direction = 'in' AND state = 'received'`);
    await db.query(`DROP INDEX hl7_messages_received`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX hl7_messages_received ON hl7_messages (updated_at) WHERE direction = 'in' AND state = 'received'`);
    await db.query(`DROP INDEX hl7_messages_received_by_arrival`);
  }
}
