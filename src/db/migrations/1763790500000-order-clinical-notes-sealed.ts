import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PhiCipher } from '../../common/crypto';
import { phiKeysFromEnvironment } from '../migration-keys';

/** Rows sealed per statement: one page of keys and values in two arrays. */
const PAGE = 500;

/**
 * An order's clinical notes are free text about the patient (PHI): sealed with the PHI key like
 * every other copy, in `clinical_notes_enc` (PhiCipher's `v1.…` of the JSON string). The notes
 * stored in plaintext are sealed here, page by page, with PHI_ENCRYPTION_KEY (which `npm run
 * migrate` has validated: every process of labflow needs it). `clinical_notes` stays for what a
 * process of the release before may still write during an upgrade: read where a row has no sealed
 * notes, and sealed by `labflow phi rekey` (PLAINTEXT_COLUMNS). Without a key in the environment
 * (a database with no orders yet needs none), rows with plaintext notes are left to the rekey.
 */
export class OrderClinicalNotesSealed1763790500000 implements MigrationInterface {
  name = 'OrderClinicalNotesSealed1763790500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE orders ADD COLUMN clinical_notes_enc text`);
    const keys = phiKeysFromEnvironment();
    if (!keys) return;
    const cipher = new PhiCipher(keys.current);
    for (;;) {
      const rows: Array<{ id: string; clinical_notes: string }> = await db.query(
        `SELECT id, clinical_notes FROM orders WHERE clinical_notes IS NOT NULL ORDER BY id LIMIT ${PAGE}`,
      );
      if (rows.length === 0) return;
      await db.query(
        `UPDATE orders o SET clinical_notes_enc = v.sealed, clinical_notes = NULL
           FROM unnest($1::uuid[], $2::text[]) AS v(id, sealed) WHERE o.id = v.id`,
        [rows.map((row) => row.id), rows.map((row) => cipher.encryptJson(row.clinical_notes))],
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    const keys = phiKeysFromEnvironment();
    const [{ sealed }]: Array<{ sealed: number }> = await db.query(`SELECT count(*)::int AS sealed FROM orders WHERE clinical_notes_enc IS NOT NULL`);
    if (sealed > 0 && !keys) throw new Error(`PHI_ENCRYPTION_KEY is needed to open the clinical notes of ${sealed} orders`);
    if (keys) {
      const cipher = new PhiCipher(keys.current, keys.previous);
      for (;;) {
        const rows: Array<{ id: string; clinical_notes_enc: string }> = await db.query(
          `SELECT id, clinical_notes_enc FROM orders WHERE clinical_notes_enc IS NOT NULL ORDER BY id LIMIT ${PAGE}`,
        );
        if (rows.length === 0) break;
        await db.query(
          `UPDATE orders o SET clinical_notes = v.notes, clinical_notes_enc = NULL
             FROM unnest($1::uuid[], $2::text[]) AS v(id, notes) WHERE o.id = v.id`,
          [rows.map((row) => row.id), rows.map((row) => cipher.decryptJson<string>(row.clinical_notes_enc))],
        );
      }
    }
    await db.query(`ALTER TABLE orders DROP COLUMN clinical_notes_enc`);
  }
}
