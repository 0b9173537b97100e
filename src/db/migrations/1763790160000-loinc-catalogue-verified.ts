import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SEED_LOINC_NAMES, slugify } from './1763790002001-lab-catalog-seed';
import { LOINC_CATALOGUE_1763790130000 } from './snapshots/1763790130000-loinc-catalogue';
import { LOINC_CATALOGUE_1763790160000 } from './snapshots/1763790160000-loinc-catalogue';
import { type SnapshotLoinc, snapshotRows } from './snapshots/loinc-snapshot-row';

/**
 * Brings `loinc_codes` from the catalogue migration 1763790130000 wrote to the verified one: every
 * code and long common name checked against LOINC, wrong entries corrected (22664-7 is urea in
 * moles, not mass; 1990-1 is cholecalciferol, not 25-hydroxyvitamin D2, so it goes), and grown
 * from 184 to the common analytes of every section.
 *
 * Both catalogues are frozen snapshots (snapshots/), never the live src/lab-tests/loinc, so this
 * migration does the same on every database whatever later happens to that module; the whole new
 * list rather than a delta, because a delta over two moving files would be the same hazard again.
 *
 * Only `lab_markers.loinc_id` references `loinc_codes`. A row a marker points at keeps its id, slug
 * and unit (markers quote their reference ranges in that unit, and orders and results show it);
 * its long name, printed names and specimen are updated. Slugs never change: clients may hold them.
 * A code dropped from the catalogue is deleted when nothing references it, otherwise kept with its
 * printed names cleared.
 */
export class LoincCatalogueVerified1763790160000 implements MigrationInterface {
  name = 'LoincCatalogueVerified1763790160000';

  async up(db: QueryRunner): Promise<void> {
    const before = snapshotRows(LOINC_CATALOGUE_1763790130000);
    const after = snapshotRows(LOINC_CATALOGUE_1763790160000);
    const kept = new Set(after.map((loinc) => loinc.code));
    for (const loinc of after) await upsert(db, loinc, loinc.name);
    for (const loinc of before.filter((old) => !kept.has(old.code))) await retire(db, loinc.code);
  }

  async down(db: QueryRunner): Promise<void> {
    const before = snapshotRows(LOINC_CATALOGUE_1763790130000);
    const after = snapshotRows(LOINC_CATALOGUE_1763790160000);
    const earlier = new Set(before.map((loinc) => loinc.code));
    for (const loinc of after.filter((added) => !earlier.has(added.code))) await retire(db, loinc.code);
    // Seeded rows had their seed long name before; 1763790130000 added names around it.
    for (const loinc of before) await upsert(db, loinc, SEED_LOINC_NAMES[loinc.code] ?? loinc.name);
  }
}

/** Inserts the row, or updates an existing one in place (unit only when no marker uses it). */
async function upsert(db: QueryRunner, loinc: SnapshotLoinc, name: string): Promise<void> {
  await db.query(
    `UPDATE loinc_codes l SET name = $2, display_name = $3, aliases = $4, specimen = $5,
       unit = CASE WHEN EXISTS (SELECT 1 FROM lab_markers m WHERE m.loinc_id = l.id) THEN l.unit ELSE $6 END
     WHERE l.code = $1`,
    [loinc.code, name, loinc.display, loinc.aliases, loinc.specimen, loinc.unit],
  );
  await db.query(
    `INSERT INTO loinc_codes (id, code, name, slug, unit, display_name, aliases, specimen)
     SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM loinc_codes), $1, $2, $3, $4, $5, $6, $7
     WHERE NOT EXISTS (SELECT 1 FROM loinc_codes WHERE code = $1)`,
    [loinc.code, name, slugify(name), loinc.unit, loinc.display, loinc.aliases, loinc.specimen],
  );
}

/** Deletes a code nothing references; a referenced one stays for its markers, without printed names. */
async function retire(db: QueryRunner, code: string): Promise<void> {
  await db.query(`DELETE FROM loinc_codes l WHERE l.code = $1 AND NOT EXISTS (SELECT 1 FROM lab_markers m WHERE m.loinc_id = l.id)`, [code]);
  await db.query(`UPDATE loinc_codes SET display_name = NULL, aliases = '{}' WHERE code = $1`, [code]);
}
