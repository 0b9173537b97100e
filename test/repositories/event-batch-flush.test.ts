import { randomBytes, randomUUID } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import type { DataSource } from 'typeorm';
import { PhiCipher } from '../../src/common/crypto';
import { createDataSource } from '../../src/db/data-source';
import { EventBatchFlusher } from '../../src/events/event-batches';
import { EventBatchesRepository } from '../../src/events/event-batches.repository';

/**
 * The relay's flush of a due batch whose item lists were written in both forms: the text
 * ciphertext of rows written before migration 1763790190000 and the binary one (compressed, then
 * encrypted) written since.
 * One event comes out, items in append order, a repeated key with its latest value.
 */
describe('event batch flush', () => {
  let db: DataSource;
  const cipher = new PhiCipher(randomBytes(32));

  beforeAll(async () => {
    db = createDataSource(process.env.DATABASE_URL as string, 2);
    await db.initialize();
  });
  afterAll(() => db.destroy());

  it('reads item lists of both forms into one event', async () => {
    const org = randomUUID();
    const team = randomUUID();
    const batch = randomUUID();
    await db.query(`INSERT INTO orgs (id, name, plan) VALUES ($1, 'flush', 'scale')`, [org]);
    await db.query(`INSERT INTO teams (id, org_id, name, region) VALUES ($1, $2, 'flush', 'us')`, [team, org]);
    await db.query(
      `INSERT INTO event_batches (id, open, event_type, team_id, environment, user_id, client_user_id, batch_group, envelope_enc, items_field, item_count, flush_at)
       VALUES ($1, false, 'daily.data.heartrate.created', $2, 'sandbox', 'u-1', 'client-1', 'oura|ring', $3, 'data', 3, clock_timestamp())`,
      [batch, team, cipher.encryptJson({ data: [], source_id: 3, user_id: 'u-1' })],
    );
    await db.query(`INSERT INTO event_batch_items (batch_id, item_count, items_enc) VALUES ($1, 2, $2)`, [
      batch,
      cipher.encryptJson([
        ['|1', { timestamp: 'a', value: 60 }],
        ['|2', { timestamp: 'b', value: 61 }],
      ]),
    ]);
    await db.query(`INSERT INTO event_batch_items (batch_id, item_count, items) VALUES ($1, 2, $2)`, [
      batch,
      cipher.encryptBytes(deflateRawSync(Buffer.from(JSON.stringify([['|1', { timestamp: 'a', value: 70 }], ['|3', { timestamp: 'c', value: 62 }]])))),
    ]);

    expect(await new EventBatchFlusher(new EventBatchesRepository(db), cipher).flushDue([team])).toBe(1);

    const [event] = await db.query(`SELECT id, event_type, data_enc FROM event_outbox WHERE team_id = $1`, [team]);
    expect(event.id).toBe(batch);
    expect(event.event_type).toBe('daily.data.heartrate.created');
    expect(cipher.decryptJson(event.data_enc)).toEqual({
      data: [
        { timestamp: 'a', value: 70 },
        { timestamp: 'b', value: 61 },
        { timestamp: 'c', value: 62 },
      ],
      source_id: 3,
      user_id: 'u-1',
    });
    expect(await db.query(`SELECT count(*)::int AS n FROM event_batches WHERE id = $1`, [batch])).toEqual([{ n: 0 }]);
    await db.query(`DELETE FROM orgs WHERE id = $1`, [org]);
  });
});
