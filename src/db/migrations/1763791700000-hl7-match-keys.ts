import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the HL7 hand-off needs of an inbound message, read by the listener as it takes it and
 * stored beside the sealed body, so the hand-off matches and signals without decrypting and
 * parsing it again: the placer numbers (labflow's order ids, lower case), the lab's filler
 * numbers, in message order, and the fact the message carries for its order (with whether it
 * corrects results). None of it is PHI: order ids and accession numbers (filler_number is
 * stored in clear already). A lab cancellation's fact keeps its words (notes) only in the sealed
 * body. placer_numbers NULL: stored before this migration (the hand-off reads the body).
 */
export class Hl7MatchKeys1763791700000 implements MigrationInterface {
  name = 'Hl7MatchKeys1763791700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE hl7_messages
        ADD COLUMN placer_numbers text[],
        ADD COLUMN filler_numbers text[],
        ADD COLUMN lab_fact text CHECK (lab_fact IN ('partial_results', 'completed', 'do_not_process')),
        ADD COLUMN lab_fact_correction boolean NOT NULL DEFAULT false`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE hl7_messages DROP COLUMN placer_numbers, DROP COLUMN filler_numbers, DROP COLUMN lab_fact, DROP COLUMN lab_fact_correction`);
  }
}
