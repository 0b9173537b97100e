import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Event batch items as binary (src/events/event-batches.ts): `items` holds the items' JSON
 * compressed (raw deflate), then encrypted (PhiCipher.encryptBytes). As base64 text of the
 * uncompressed JSON (`items_enc`) a request's lists were hundreds of kilobytes: a base64 encoding
 * and a UTF-8 pass in the ingesting request, and as much Postgres CPU to store as its samples.
 * Rows written before keep `items_enc`, which the flush still reads. STORAGE EXTERNAL:
 * ciphertext does not compress, so Postgres need not try.
 */
export class EventBatchItemsBinary1763790190000 implements MigrationInterface {
  name = 'EventBatchItemsBinary1763790190000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_batch_items ADD COLUMN items bytea, ALTER COLUMN items_enc DROP NOT NULL`);
    await db.query(`ALTER TABLE event_batch_items ALTER COLUMN items SET STORAGE EXTERNAL`);
    await db.query(`ALTER TABLE event_batch_items ADD CONSTRAINT event_batch_items_one_form CHECK ((items IS NULL) <> (items_enc IS NULL))`);
  }

  async down(db: QueryRunner): Promise<void> {
    // Pending binary lists would be unreadable by the old code: the way back waits for the relay to flush them.
    const [{ pending }] = await db.query(`SELECT count(*)::int AS pending FROM event_batch_items WHERE items IS NOT NULL`);
    if (pending > 0) throw new Error(`${pending} event batch item lists are pending in binary form; let the relay flush them, then revert.`);
    await db.query(`ALTER TABLE event_batch_items DROP CONSTRAINT event_batch_items_one_form`);
    await db.query(`ALTER TABLE event_batch_items DROP COLUMN items, ALTER COLUMN items_enc SET NOT NULL`);
  }
}
