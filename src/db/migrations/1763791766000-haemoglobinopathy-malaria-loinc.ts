import type { MigrationInterface, QueryRunner } from 'typeorm';
import { slugify } from './1763790002001-lab-catalog-seed';
import { LOINC_ADDED_1763791766000 } from './snapshots/1763791766000-loinc-catalogue';
import { snapshotRows } from './snapshots/loinc-snapshot-row';

/**
 * Adds to `loinc_codes` the screens labs in malaria-endemic countries print beside a blood count:
 * 4621-9 `Hemoglobin S [Presence] in Blood` (the sickling test), 13514-5 the haemoglobin
 * electrophoresis pattern (the Hb genotype), 51587-4 malaria parasites by blood film and 70569-9
 * malaria by rapid antigen test. Before, a parsed report's rows for them met no code of their own.
 * Rows from a frozen snapshot (snapshots/1763791766000), never the live catalogue. Down removes
 * the rows no marker references.
 */
export class HaemoglobinopathyMalariaLoinc1763791766000 implements MigrationInterface {
  name = 'HaemoglobinopathyMalariaLoinc1763791766000';

  async up(db: QueryRunner): Promise<void> {
    for (const loinc of snapshotRows(LOINC_ADDED_1763791766000)) {
      await db.query(
        `INSERT INTO loinc_codes (id, code, name, slug, unit, display_name, aliases, specimen)
         SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM loinc_codes), $1, $2, $3, $4, $5, $6, $7
         WHERE NOT EXISTS (SELECT 1 FROM loinc_codes WHERE code = $1)`,
        [loinc.code, loinc.name, slugify(loinc.name), loinc.unit, loinc.display, loinc.aliases, loinc.specimen],
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    for (const loinc of snapshotRows(LOINC_ADDED_1763791766000)) {
      await db.query(`DELETE FROM loinc_codes l WHERE l.code = $1 AND NOT EXISTS (SELECT 1 FROM lab_markers m WHERE m.loinc_id = l.id)`, [loinc.code]);
    }
  }
}
