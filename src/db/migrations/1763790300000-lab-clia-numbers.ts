import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each lab's CLIA number (the US certificate a lab's reports carry, `clia_#` in a report's
 * metadata). The seeded sandbox labs get numbers of the CLIA shape (two digits, D, seven digits)
 * in a range no certificate uses (99D…), so no sandbox report passes for a real lab's.
 */
const CLIA: Record<number, string> = { 1: '99D0000001', 2: '99D0000002', 3: '99D0000003', 4: '99D0000004', 5: '99D0000005' };

export class LabCliaNumbers1763790300000 implements MigrationInterface {
  name = 'LabCliaNumbers1763790300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE labs ADD COLUMN clia_number text CHECK (clia_number ~ '^[0-9]{2}D[0-9]{7}$')`);
    for (const [id, clia] of Object.entries(CLIA)) await db.query(`UPDATE labs SET clia_number = $2 WHERE id = $1`, [Number(id), clia]);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE labs DROP COLUMN clia_number`);
  }
}
