import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PhiCipher, portalCodeDigest, portalCodeKey } from '../../common/crypto';
import { phiKeysFromEnvironment } from '../migration-keys';

/** Rows converted per statement. */
const PAGE = 500;

/**
 * Portal credentials are no longer stored usable:
 *
 * - `portal_links.code` (a communications link's `/p/<code>`, which opens a patient's portal for
 *   28 days) gives way to `code_hash`: HMAC-SHA256 of the code under a key derived from
 *   PHI_ENCRYPTION_KEY (portalCodeDigest; a plain hash of an 8-character code could be reversed
 *   offline by trying them all). Lookups go by the hash. The codes stored so far are hashed here,
 *   so their links keep working; that needs PHI_ENCRYPTION_KEY, which `npm run migrate` has
 *   validated (the migration refuses to run without it when there are codes to hash).
 * - `order_reminders.link_url` (the portal link a reminder sent, kept so a retry sends the same)
 *   is sealed in `link_url_enc` (PhiCipher.encryptJson of the URL). The links stored so far are
 *   sealed here when the key is in the environment; otherwise, or when a process of the release
 *   before writes one during an upgrade, `labflow phi rekey` seals them (PLAINTEXT_COLUMNS).
 *
 * The way back cannot recover codes from their hashes: it deletes the communications links
 * (their URLs stop working, as they would have anyway) and opens the sealed reminder links.
 */
export class PortalCredentialsAtRest1763790501000 implements MigrationInterface {
  name = 'PortalCredentialsAtRest1763790501000';

  async up(db: QueryRunner): Promise<void> {
    const phiKey = phiKeysFromEnvironment()?.current ?? null;

    await db.query(`ALTER TABLE portal_links ADD COLUMN code_hash bytea`);
    const [{ codes }]: Array<{ codes: number }> = await db.query(`SELECT count(*)::int AS codes FROM portal_links WHERE code IS NOT NULL`);
    if (codes > 0) {
      if (!phiKey) throw new Error(`PHI_ENCRYPTION_KEY is needed to hash the ${codes} stored portal codes`);
      const codeKey = portalCodeKey(phiKey);
      for (;;) {
        const rows: Array<{ id: string; code: string }> = await db.query(
          `SELECT id, code FROM portal_links WHERE code IS NOT NULL AND code_hash IS NULL ORDER BY id LIMIT ${PAGE}`,
        );
        if (rows.length === 0) break;
        await db.query(`UPDATE portal_links p SET code_hash = v.code_hash FROM unnest($1::uuid[], $2::bytea[]) AS v(id, code_hash) WHERE p.id = v.id`, [
          rows.map((row) => row.id),
          rows.map((row) => portalCodeDigest(codeKey, row.code)),
        ]);
      }
    }
    // Dropping the column drops its unique index and the check that involved it.
    await db.query(`ALTER TABLE portal_links DROP COLUMN code`);
    await db.query(`ALTER TABLE portal_links ADD CONSTRAINT portal_links_code_hash_key UNIQUE (code_hash)`);
    await db.query(`ALTER TABLE portal_links ADD CONSTRAINT portal_links_code_hash_check CHECK ((context = 'communications') = (code_hash IS NOT NULL))`);

    await db.query(`ALTER TABLE order_reminders ADD COLUMN link_url_enc text`);
    if (!phiKey) return;
    const cipher = new PhiCipher(phiKey);
    for (;;) {
      const rows: Array<{ order_id: string; reminder_key: string; link_url: string }> = await db.query(
        `SELECT order_id, reminder_key, link_url FROM order_reminders WHERE link_url IS NOT NULL ORDER BY order_id, reminder_key LIMIT ${PAGE}`,
      );
      if (rows.length === 0) return;
      await db.query(
        `UPDATE order_reminders r SET link_url_enc = v.sealed, link_url = NULL
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS v(order_id, reminder_key, sealed)
          WHERE r.order_id = v.order_id AND r.reminder_key = v.reminder_key`,
        [rows.map((row) => row.order_id), rows.map((row) => row.reminder_key), rows.map((row) => cipher.encryptJson(row.link_url))],
      );
    }
  }

  async down(db: QueryRunner): Promise<void> {
    const keys = phiKeysFromEnvironment();
    const [{ sealed }]: Array<{ sealed: number }> = await db.query(`SELECT count(*)::int AS sealed FROM order_reminders WHERE link_url_enc IS NOT NULL`);
    if (sealed > 0 && !keys) throw new Error(`PHI_ENCRYPTION_KEY is needed to open the ${sealed} sealed reminder links`);
    if (keys) {
      const cipher = new PhiCipher(keys.current, keys.previous);
      for (;;) {
        const rows: Array<{ order_id: string; reminder_key: string; link_url_enc: string }> = await db.query(
          `SELECT order_id, reminder_key, link_url_enc FROM order_reminders WHERE link_url_enc IS NOT NULL ORDER BY order_id, reminder_key LIMIT ${PAGE}`,
        );
        if (rows.length === 0) break;
        await db.query(
          `UPDATE order_reminders r SET link_url = v.url, link_url_enc = NULL
             FROM unnest($1::uuid[], $2::text[], $3::text[]) AS v(order_id, reminder_key, url)
            WHERE r.order_id = v.order_id AND r.reminder_key = v.reminder_key`,
          [rows.map((row) => row.order_id), rows.map((row) => row.reminder_key), rows.map((row) => cipher.decryptJson<string>(row.link_url_enc))],
        );
      }
    }
    await db.query(`ALTER TABLE order_reminders DROP COLUMN link_url_enc`);

    await db.query(`DELETE FROM portal_links WHERE context = 'communications'`);
    await db.query(`ALTER TABLE portal_links DROP COLUMN code_hash`);
    await db.query(`ALTER TABLE portal_links ADD COLUMN code text UNIQUE`);
    await db.query(`ALTER TABLE portal_links ADD CONSTRAINT portal_links_check CHECK ((context = 'communications') = (code IS NOT NULL))`);
  }
}
