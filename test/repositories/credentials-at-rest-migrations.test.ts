import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PhiCipher } from '../../src/common/crypto';
import { dataSourceOptions, MIGRATIONS } from '../../src/db/data-source';
import { PortalLinksRepository } from '../../src/portal/portal-links.repository';
import { PortalTokens } from '../../src/portal/portal-tokens';
import { createOrder, createTeam, createUser } from '../helpers/repository-db';
import { createScratchDatabase } from '../helpers/scratch-database';

/**
 * Migrations 1763790500000 (orders' clinical notes and ICD codes sealed) and 1763790501000 (portal codes hashed,
 * reminders' portal links sealed) on a database that holds them in clear: afterwards no row holds
 * them, the sealed ones open to what was stored, a stored code is found by its hash (the link
 * still opens), and the way back restores what it can.
 */
describe('credentials and clinical notes at rest: the migrations', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let db: DataSource;
  const phiKey = Buffer.from(process.env.PHI_ENCRYPTION_KEY as string, 'base64');
  const cipher = new PhiCipher(phiKey);

  beforeAll(async () => {
    scratch = await createScratchDatabase('labflow_at_rest_migration');
  });
  afterAll(async () => {
    if (db?.isInitialized) await db.destroy();
    await scratch?.drop();
  });

  it('seals the notes and reminder links and hashes the codes they find, and back', async () => {
    const first = MIGRATIONS.findIndex((migration) => migration.name === 'OrderClinicalDataSealed1763790500000');
    const second = MIGRATIONS.findIndex((migration) => migration.name === 'PortalCredentialsAtRest1763790501000');
    expect([first > 0, second]).toEqual([true, first + 1]);
    const before = new DataSource({ ...dataSourceOptions(scratch.url, 2), migrations: MIGRATIONS.slice(0, first) });
    await before.initialize();
    await before.runMigrations();
    const { teamId } = await createTeam(before);
    const userId = await createUser(before, teamId);
    const orderIds = [await createOrder(before, teamId, { userId }), await createOrder(before, teamId, { userId })];
    const notes = `Fasting; takes Quillonex ${randomUUID()}`;
    await before.query(`UPDATE orders SET clinical_notes = $2, icd_codes = $3 WHERE id = $1`, [orderIds[0], notes, ['Q87.41', 'Z86.19']]);
    const code = 'Ab3dE5gH';
    const url = `https://labflow.example/p/${code}`;
    const linkId = randomUUID();
    await before.query(
      `INSERT INTO portal_links (id, team_id, environment, user_id, order_id, context, code, expires_at) VALUES ($1, $2, 'sandbox', $3, $4, 'communications', $5, now() + interval '1 day'),
              ($6, $2, 'sandbox', $3, $4, 'launch', NULL, now() + interval '1 day')`,
      [linkId, teamId, userId, orderIds[0], code, randomUUID()],
    );
    await before.query(
      `INSERT INTO order_reminders (order_id, reminder_key, team_id, kind, sequence, link_url) VALUES ($1, 'kit_return:1', $2, 'kit_return', 1, $3)`,
      [orderIds[0], teamId, url],
    );
    await before.destroy();

    db = new DataSource({ ...dataSourceOptions(scratch.url, 2), migrations: MIGRATIONS.slice(0, second + 1) });
    await db.initialize();
    await db.runMigrations();
    const inClear = async (value: string) =>
      (
        await db.query(
          `SELECT 'orders' FROM orders o WHERE o::text LIKE '%' || $1 || '%' UNION ALL SELECT 'portal_links' FROM portal_links p WHERE p::text LIKE '%' || $1 || '%'
                        UNION ALL SELECT 'order_reminders' FROM order_reminders r WHERE r::text LIKE '%' || $1 || '%'`,
          [value],
        )
      ).length;
    expect({ notes: await inClear(notes), icd: await inClear('Q87.41'), code: await inClear(code) }).toEqual({ notes: 0, icd: 0, code: 0 });

    const [order] = await db.query(`SELECT clinical_notes, clinical_notes_enc, icd_codes, icd_codes_enc FROM orders WHERE id = $1`, [orderIds[0]]);
    expect({
      clinical_notes: order.clinical_notes,
      notes: cipher.decryptJson(order.clinical_notes_enc),
      icd_codes: order.icd_codes,
      codes: cipher.decryptJson(order.icd_codes_enc),
    }).toEqual({
      clinical_notes: null,
      notes,
      icd_codes: null,
      codes: ['Q87.41', 'Z86.19'],
    });
    expect(await db.query(`SELECT clinical_notes_enc, icd_codes_enc FROM orders WHERE id = $1`, [orderIds[1]])).toEqual([
      { clinical_notes_enc: null, icd_codes_enc: null },
    ]);
    const [reminder] = await db.query(`SELECT link_url, link_url_enc FROM order_reminders WHERE order_id = $1`, [orderIds[0]]);
    expect({ link_url: reminder.link_url, opened: cipher.decryptJson(reminder.link_url_enc) }).toEqual({ link_url: null, opened: url });
    // The code is found by what the application looks it up with.
    const links = new PortalLinksRepository(db);
    expect((await links.byCode(new PortalTokens(phiKey).codeDigests(code)))?.id).toBe(linkId);
    expect(await links.byCode(new PortalTokens(phiKey).codeDigests('Ab3dE5gX'))).toBeNull();

    // The way back: the notes and the reminder link in clear again; communications links (whose codes are gone) deleted.
    await db.undoLastMigration();
    await db.undoLastMigration();
    expect(await db.query(`SELECT clinical_notes, icd_codes FROM orders WHERE id = ANY($1::uuid[]) ORDER BY clinical_notes`, [orderIds])).toEqual([
      { clinical_notes: notes, icd_codes: ['Q87.41', 'Z86.19'] },
      { clinical_notes: null, icd_codes: null },
    ]);
    expect(await db.query(`SELECT link_url FROM order_reminders WHERE order_id = $1`, [orderIds[0]])).toEqual([{ link_url: url }]);
    expect(await db.query(`SELECT context, code FROM portal_links WHERE user_id = $1`, [userId])).toEqual([{ context: 'launch', code: null }]);
  });
});
