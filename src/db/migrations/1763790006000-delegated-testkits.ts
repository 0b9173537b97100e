import type { MigrationInterface, QueryRunner } from 'typeorm';
import { seedMarkers, slugify } from './1763790002001-lab-catalog-seed';

/**
 * A test kit at a lab that supports delegated accounts, so the physician rule (order creation
 * rule 3) applies to kit orders too: Labcorp also ships a dried-blood-spot lipid kit. With it, a
 * sandbox order-delegated Labcorp account (active), next to the seed's fully-delegated one and
 * Labcorp's not-delegated platform account.
 */
export const DELEGATED_TESTKIT = {
  id: '1ab7e570-0000-4000-8000-00000000000b',
  labId: 2,
  name: 'Lipid Panel (test kit, Labcorp)',
  description: 'At-home finger-prick lipid panel on a dried blood spot card, analysed by Labcorp.',
  price: 52,
} as const;

export const LABCORP_ORDER_DELEGATED_ACCOUNT = {
  id: '1ab0acc0-0000-4000-8000-000000000108',
  providerAccountId: 'LF-LABCORP-SBX-OD',
  accountName: 'Sandbox Labcorp account (order delegated)',
} as const;

export class DelegatedTestkits1763790006000 implements MigrationInterface {
  name = 'DelegatedTestkits1763790006000';

  async up(db: QueryRunner): Promise<void> {
    const kit = DELEGATED_TESTKIT;
    await db.query(
      `UPDATE labs
          SET collection_methods = CASE WHEN 'testkit' = ANY(collection_methods) THEN collection_methods ELSE array_append(collection_methods, 'testkit') END,
              sample_types = CASE WHEN 'dried_blood_spot' = ANY(sample_types) THEN sample_types ELSE array_append(sample_types, 'dried_blood_spot') END
        WHERE id = $1`,
      [kit.labId],
    );
    const panel = seedMarkers().find((marker) => marker.lab_id === kit.labId && marker.key === 'lipid_panel');
    if (!panel) throw new Error(`no lipid panel at lab ${kit.labId}`);
    await db.query(
      `INSERT INTO lab_tests (id, team_id, environment, lab_id, slug, name, description, sample_type, method, price, is_active, status,
           fasting, has_collection_instructions, common_tat_days, worst_case_tat_days)
         VALUES ($1, NULL, NULL, $2, $3, $4, $5, 'dried_blood_spot', 'testkit', $6, true, 'active', true, true, 5, 10)`,
      [kit.id, kit.labId, slugify(kit.name), kit.name, kit.description, kit.price.toFixed(2)],
    );
    await db.query(`INSERT INTO lab_test_markers (lab_test_id, marker_id, position) VALUES ($1, $2, 0)`, [kit.id, panel.id]);
    const account = LABCORP_ORDER_DELEGATED_ACCOUNT;
    await db.query(
      `INSERT INTO lab_accounts (id, team_id, environment, lab_id, status, delegated_flow, provider_account_id, account_name,
           default_clinical_notes, allowed_billing, team_id_allowlist)
         VALUES ($1, NULL, 'sandbox', $2, 'active', 'order_delegated', $3, $4, NULL, '{client_bill}', '{}')`,
      [account.id, kit.labId, account.providerAccountId, account.accountName],
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DELETE FROM lab_accounts WHERE id = $1`, [LABCORP_ORDER_DELEGATED_ACCOUNT.id]);
    await db.query(`DELETE FROM lab_test_markers WHERE lab_test_id = $1`, [DELEGATED_TESTKIT.id]);
    await db.query(`DELETE FROM lab_tests WHERE id = $1`, [DELEGATED_TESTKIT.id]);
    await db.query(
      `UPDATE labs SET collection_methods = array_remove(collection_methods, 'testkit'), sample_types = array_remove(sample_types, 'dried_blood_spot') WHERE id = $1`,
      [DELEGATED_TESTKIT.labId],
    );
  }
}
