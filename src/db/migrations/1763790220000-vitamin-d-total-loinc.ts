import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The catalogue's "Vitamin D, 25-Hydroxy" markers (slug vitamin_d_25_oh, every lab) were coded
 * 1989-3, 25-hydroxyvitamin D3 alone. The test they name measures total 25-OH vitamin D (D2 + D3),
 * LOINC 62292-8, as the labs code it and as lab-report parsing already matches the same printed
 * name (src/lab-tests/loinc/nutrition.ts): an ordered result and a parsed report of the same test
 * now carry the same code. 62292-8 is in loinc_codes since migration 1763790130000.
 */
export class VitaminDTotalLoinc1763790220000 implements MigrationInterface {
  name = 'VitaminDTotalLoinc1763790220000';

  async up(db: QueryRunner): Promise<void> {
    await this.recode(db, '1989-3', '62292-8');
  }

  async down(db: QueryRunner): Promise<void> {
    await this.recode(db, '62292-8', '1989-3');
  }

  private async recode(db: QueryRunner, from: string, to: string): Promise<void> {
    await db.query(
      `UPDATE lab_markers m SET loinc_id = target.id
         FROM loinc_codes source, loinc_codes target
        WHERE m.slug = 'vitamin_d_25_oh' AND m.loinc_id = source.id AND source.code = $1 AND target.code = $2`,
      [from, to],
    );
  }
}
