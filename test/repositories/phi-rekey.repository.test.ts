import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PhiRekeyRepository, SEALED_COLUMNS, type SealedColumn } from '../../src/ops/phi-rekey.repository';
import { createOrder, createTeam, migratedScratchDatabase, type Team } from '../helpers/repository-db';

/** PhiRekeyRepository on a database of this file's own: a rekey reads every row of a sealed column. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: PhiRekeyRepository;
let team: Team;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_phi_rekey');
  db = scratch.db;
  repo = new PhiRekeyRepository(db);
  team = await createTeam(db);
});
afterAll(() => scratch?.drop());

const column = (table: string, name: string): SealedColumn => SEALED_COLUMNS.find((item) => item.table === table && item.column === name)!;

it('reads a column with a two-part key in key order, page after page, skipping rows without a value', async () => {
  const batches = [randomUUID(), randomUUID()].sort();
  for (const id of batches) {
    await db.query(
      `INSERT INTO event_batches (id, open, event_type, team_id, environment, user_id, client_user_id, envelope_enc, item_count, flush_at)
       VALUES ($1, false, 'daily.data.heartrate.created', $2, 'sandbox', 'u', 'c', 'env', 0, now() + interval '1 hour')`,
      [id, team.teamId],
    );
    // The middle list is in the binary form: no text value to read.
    for (const items of ['a', null, 'b']) {
      await db.query(`INSERT INTO event_batch_items (batch_id, item_count, items_enc, items) VALUES ($1, 1, $2, $3)`, [
        id,
        items,
        items === null ? Buffer.from('x') : null,
      ]);
    }
  }
  const itemsEnc = column('event_batch_items', 'items_enc');
  const seen: string[] = [];
  let after: unknown[] | null = null;
  for (;;) {
    const page = await repo.batch(itemsEnc, after, 3);
    seen.push(...page.map((item) => `${(item.key[0] as string) === batches[0] ? 0 : 1}:${item.value as string}`));
    if (page.length < 3) break;
    after = page[page.length - 1].key;
  }
  expect(seen).toEqual(['0:a', '0:b', '1:a', '1:b']);
});

it('replaces a value only while its row still holds the one read, leaving the row otherwise as it was', async () => {
  const notes = column('orders', 'notes_enc');
  const [kept, changed] = [await createOrder(db, team.teamId, { updatedAt: '2026-01-01T00:00:00Z' }), await createOrder(db, team.teamId)];
  await db.query(`UPDATE orders SET notes_enc = 'old-' || id WHERE id = ANY($1::uuid[])`, [[kept, changed]]);
  const read = await repo.batch(notes, null, 10);
  // Written meanwhile with the current key: the rekey must not put its copy of the old value back.
  await db.query(`UPDATE orders SET notes_enc = 'new' WHERE id = $1`, [changed]);

  const replaced = await repo.replaceAll(
    notes,
    read.map((item) => ({ key: item.key, sealed: item.value, resealed: `resealed-${item.value as string}` })),
  );
  expect(replaced).toBe(1);
  expect(await db.query(`SELECT id, notes_enc, updated_at FROM orders WHERE id = ANY($1::uuid[]) ORDER BY notes_enc`, [[kept, changed]])).toEqual([
    { id: changed, notes_enc: 'new', updated_at: expect.any(Date) },
    { id: kept, notes_enc: `resealed-old-${kept}`, updated_at: new Date('2026-01-01T00:00:00Z') },
  ]);
});

it('lists every column of the schema that looks sealed, and each is in SEALED_COLUMNS', async () => {
  const looking = await repo.sealedLookingColumns();
  expect(looking.length).toBeGreaterThan(10);
  expect(looking.map((item) => `${item.table}.${item.column}`).sort()).toEqual(SEALED_COLUMNS.map((item) => `${item.table}.${item.column}`).sort());
});
