import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An order's notes (the order's `notes`, which nothing wrote before this column): the lab's latest note on the
 * order, as a lab event brought it. Free text about a patient's sample, so encrypted as PHI.
 */
export class OrderNotes1763790320000 implements MigrationInterface {
  name = 'OrderNotes1763790320000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE orders ADD COLUMN notes_enc text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE orders DROP COLUMN notes_enc`);
  }
}
