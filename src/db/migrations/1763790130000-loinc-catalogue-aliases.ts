import type { MigrationInterface, QueryRunner } from 'typeorm';
import { slugify } from './1763790002001-lab-catalog-seed';
import { LOINC_CATALOGUE_1763790130000 } from './snapshots/1763790130000-loinc-catalogue';
import { snapshotRows } from './snapshots/loinc-snapshot-row';

/** This migration's own frozen copy of the catalogue (it once read the live data file, so its meaning moved with it). */
const CURATED_LOINC = snapshotRows(LOINC_CATALOGUE_1763790130000);

/**
 * Extends `loinc_codes` into the catalogue lab-report parsing matches printed test names against:
 * the name labs print, the other names and abbreviations they use, and the specimen. Adds the
 * curated analytes (snapshots/1763790130000-loinc-catalogue.ts) and gives the seeded codes their
 * names and aliases; seeded rows keep their long name and unit, which markers and orders show.
 */
export class LoincCatalogueAliases1763790130000 implements MigrationInterface {
  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE loinc_codes
        ADD COLUMN display_name text,
        ADD COLUMN aliases text[] NOT NULL DEFAULT '{}',
        ADD COLUMN specimen text CHECK (specimen IN ('serum_plasma', 'blood', 'plasma', 'urine'))`);
    for (const loinc of CURATED_LOINC) {
      await db.query(`UPDATE loinc_codes SET display_name = $2, aliases = $3, specimen = $4, unit = COALESCE(unit, $5) WHERE code = $1`, [
        loinc.code,
        loinc.display,
        loinc.aliases,
        loinc.specimen,
        loinc.unit,
      ]);
      await db.query(
        `INSERT INTO loinc_codes (id, code, name, slug, unit, display_name, aliases, specimen)
         SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM loinc_codes), $1, $2, $3, $4, $5, $6, $7
         WHERE NOT EXISTS (SELECT 1 FROM loinc_codes WHERE code = $1)`,
        [loinc.code, loinc.name, slugify(loinc.name), loinc.unit, loinc.display, loinc.aliases, loinc.specimen],
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      `DELETE FROM loinc_codes WHERE code = ANY($1) AND display_name IS NOT NULL
         AND id NOT IN (SELECT loinc_id FROM lab_markers WHERE loinc_id IS NOT NULL)`,
      [CURATED_LOINC.map((loinc) => loinc.code)],
    );
    await db.query(`ALTER TABLE loinc_codes DROP COLUMN display_name, DROP COLUMN aliases, DROP COLUMN specimen`);
  }
}
