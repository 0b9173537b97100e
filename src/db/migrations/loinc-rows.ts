import type { QueryRunner } from 'typeorm';
import { slugify } from './1763790002001-lab-catalog-seed';
import { snapshotRows, type SnapshotRow } from './snapshots/loinc-snapshot-row';

/**
 * What a migration that adds LOINC rows from a snapshot does, up and down: each row inserted
 * unless its code is there already, and removed again unless a marker references it.
 */
export async function insertLoincRows(db: QueryRunner, rows: SnapshotRow[]): Promise<void> {
  for (const loinc of snapshotRows(rows)) {
    await db.query(
      `INSERT INTO loinc_codes (id, code, name, slug, unit, display_name, aliases, specimen)
       SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM loinc_codes), $1, $2, $3, $4, $5, $6, $7
       WHERE NOT EXISTS (SELECT 1 FROM loinc_codes WHERE code = $1)`,
      [loinc.code, loinc.name, slugify(loinc.name), loinc.unit, loinc.display, loinc.aliases, loinc.specimen],
    );
  }
}

export async function deleteUnreferencedLoincRows(db: QueryRunner, rows: SnapshotRow[]): Promise<void> {
  for (const [code] of rows) {
    await db.query(`DELETE FROM loinc_codes l WHERE l.code = $1 AND NOT EXISTS (SELECT 1 FROM lab_markers m WHERE m.loinc_id = l.id)`, [code]);
  }
}
