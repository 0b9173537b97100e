import type { MigrationInterface, QueryRunner } from 'typeorm';
import { seedMarkers, slugify } from './1763790002001-lab-catalog-seed';

/**
 * On-site collection: Quest also takes samples the team's own staff draw (a clinic, an employer
 * event), so a global on-site lab test can be ordered and walked through its lifecycle in the
 * sandbox like the other collection methods.
 */
export const ON_SITE_TEST = {
  id: '1ab7e570-0000-4000-8000-00000000000c',
  labId: 1,
  name: 'Comprehensive Metabolic Panel (on-site)',
  description: 'CMP drawn on site by your own staff and sent to Quest.',
  price: 32,
} as const;

export class OnSiteCollectionTest1763790260000 implements MigrationInterface {
  name = 'OnSiteCollectionTest1763790260000';

  async up(db: QueryRunner): Promise<void> {
    const test = ON_SITE_TEST;
    await db.query(
      `UPDATE labs
          SET collection_methods = CASE WHEN 'on_site_collection' = ANY(collection_methods) THEN collection_methods ELSE array_append(collection_methods, 'on_site_collection') END
        WHERE id = $1`,
      [test.labId],
    );
    const panel = seedMarkers().find((marker) => marker.lab_id === test.labId && marker.key === 'comprehensive_metabolic_panel');
    if (!panel) throw new Error(`no comprehensive metabolic panel at lab ${test.labId}`);
    await db.query(
      `INSERT INTO lab_tests (id, team_id, environment, lab_id, slug, name, description, sample_type, method, price, is_active, status,
           fasting, has_collection_instructions, common_tat_days, worst_case_tat_days)
         VALUES ($1, NULL, NULL, $2, $3, $4, $5, 'serum', 'on_site_collection', $6, true, 'active', true, true, 2, 5)`,
      [test.id, test.labId, slugify(test.name), test.name, test.description, test.price.toFixed(2)],
    );
    await db.query(`INSERT INTO lab_test_markers (lab_test_id, marker_id, position) VALUES ($1, $2, 0)`, [test.id, panel.id]);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM lab_test_markers WHERE lab_test_id = $1`, [ON_SITE_TEST.id]);
    await db.query(`DELETE FROM lab_tests WHERE id = $1`, [ON_SITE_TEST.id]);
    await db.query(`UPDATE labs SET collection_methods = array_remove(collection_methods, 'on_site_collection') WHERE id = $1`, [ON_SITE_TEST.labId]);
  }
}
