import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PhiCipher } from '../../common/crypto';
import { phiKeysFromEnvironment } from '../migration-keys';

/** Rows sealed per statement: one page of keys and values in two arrays. */
const PAGE = 500;

/** Each plaintext column of orders, the sealed column that replaces it, and the SQL type of its values. */
const COLUMNS = [
  { plaintext: 'clinical_notes', sealed: 'clinical_notes_enc', type: 'text' },
  { plaintext: 'icd_codes', sealed: 'icd_codes_enc', type: 'text[]' },
] as const;

/**
 * An order's clinical notes (free text about the patient) and ICD codes (the patient's diagnoses)
 * are PHI: sealed with the PHI key like every other copy, in `clinical_notes_enc` and
 * `icd_codes_enc` (PhiCipher's `v1.…` of the JSON string or array). The values stored in
 * plaintext are sealed here, page by page, with PHI_ENCRYPTION_KEY (which `npm run migrate` has
 * validated: every process of labflow needs it). The plaintext columns stay for what a process of
 * the release before may still write during an upgrade: read where a row has no sealed value, and
 * sealed by `labflow phi rekey` (PLAINTEXT_COLUMNS). Without a key in the environment (a database
 * with no orders yet needs none), plaintext values are left to the rekey.
 */
export class OrderClinicalDataSealed1763790500000 implements MigrationInterface {
  name = 'OrderClinicalDataSealed1763790500000';

  async up(db: QueryRunner): Promise<void> {
    for (const column of COLUMNS) await db.query(`ALTER TABLE orders ADD COLUMN ${column.sealed} text`);
    const keys = phiKeysFromEnvironment();
    if (!keys) return;
    const cipher = new PhiCipher(keys.current);
    for (const column of COLUMNS) {
      for (;;) {
        const rows: Array<{ id: string; value: unknown }> = await db.query(
          `SELECT id, ${column.plaintext} AS value FROM orders WHERE ${column.plaintext} IS NOT NULL ORDER BY id LIMIT ${PAGE}`,
        );
        if (rows.length === 0) break;
        await db.query(
          `UPDATE orders o SET ${column.sealed} = v.sealed, ${column.plaintext} = NULL
             FROM unnest($1::uuid[], $2::text[]) AS v(id, sealed) WHERE o.id = v.id`,
          [rows.map((row) => row.id), rows.map((row) => cipher.encryptJson(row.value))],
        );
      }
    }
  }

  async down(db: QueryRunner): Promise<void> {
    const keys = phiKeysFromEnvironment();
    const [{ sealed }]: Array<{ sealed: number }> = await db.query(
      `SELECT count(*)::int AS sealed FROM orders WHERE ${COLUMNS.map((column) => `${column.sealed} IS NOT NULL`).join(' OR ')}`,
    );
    if (sealed > 0 && !keys) throw new Error(`PHI_ENCRYPTION_KEY is needed to open the clinical notes and ICD codes of ${sealed} orders`);
    if (keys) {
      const cipher = new PhiCipher(keys.current, keys.previous);
      for (const column of COLUMNS) {
        for (;;) {
          const rows: Array<{ id: string; sealed: string }> = await db.query(
            `SELECT id, ${column.sealed} AS sealed FROM orders WHERE ${column.sealed} IS NOT NULL ORDER BY id LIMIT ${PAGE}`,
          );
          if (rows.length === 0) break;
          // Each value as JSON, read back into the column's type (a string, or an array of strings).
          await db.query(
            `UPDATE orders o SET ${column.plaintext} = ${column.type === 'text' ? `v.value #>> '{}'` : `ARRAY(SELECT jsonb_array_elements_text(v.value))`}, ${column.sealed} = NULL
               FROM unnest($1::uuid[], $2::jsonb[]) AS v(id, value) WHERE o.id = v.id`,
            [rows.map((row) => row.id), rows.map((row) => cipher.decrypt(row.sealed))],
          );
        }
      }
    }
    for (const column of COLUMNS) await db.query(`ALTER TABLE orders DROP COLUMN ${column.sealed}`);
  }
}
