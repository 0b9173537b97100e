import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Event batch items as binary ciphertext (src/events/event-batches.ts): `items` holds
 * PhiCipher.encryptBytes of the items' JSON. As base64 text (`items_enc`) the lists cost the
 * ingesting request a base64 encoding and the driver a UTF-8 pass over a third more bytes, for
 * hundreds of kilobytes per request. Rows written before keep `items_enc`, which the flush still
 * reads. STORAGE EXTERNAL: ciphertext does not compress, so Postgres need not try.
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
