import type { MigrationInterface, QueryRunner } from 'typeorm';
import { slugify } from './1763790002001-lab-catalog-seed';
import { LOINC_ADDED_1763791765000 } from './snapshots/1763791765000-loinc-catalogue';
import { snapshotRows } from './snapshots/loinc-snapshot-row';

/**
 * Adds haemoglobin in moles, 59260-0 `Hemoglobin [Moles/volume] in Blood` (mmol/L: Dutch labs
 * print it so), to `loinc_codes`, so a parsed report's haemoglobin in mmol/L meets its own code
 * rather than 718-7's (g/dL). Rows from a frozen snapshot (snapshots/1763791765000), never the live
 * catalogue. Down removes the row when no marker references it.
 */
export class HaemoglobinSiLoinc1763791765000 implements MigrationInterface {
  name = 'HaemoglobinSiLoinc1763791765000';

  async up(db: QueryRunner): Promise<void> {
    for (const loinc of snapshotRows(LOINC_ADDED_1763791765000)) {
      await db.query(
        `INSERT INTO loinc_codes (id, code, name, slug, unit, display_name, aliases, specimen)
         SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM loinc_codes), $1, $2, $3, $4, $5, $6, $7
         WHERE NOT EXISTS (SELECT 1 FROM loinc_codes WHERE code = $1)`,
        [loinc.code, loinc.name, slugify(loinc.name), loinc.unit, loinc.display, loinc.aliases, loinc.specimen],
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const loinc of snapshotRows(LOINC_ADDED_1763791765000)) {
      await db.query(`DELETE FROM loinc_codes l WHERE l.code = $1 AND NOT EXISTS (SELECT 1 FROM lab_markers m WHERE m.loinc_id = l.id)`, [loinc.code]);
    }
  }
}
