import type { DataSource } from 'typeorm';
import { type StrandedFinding, type StrandedListPosition, StrandedOrdersRepository } from '../../src/orders/stranded-orders.repository';
import { createOrder, createTeam, migratedScratchDatabase, type Team } from '../helpers/repository-db';

/** StrandedOrdersRepository on a database of this file's own: resolveEnded and the gauge read every team's rows. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: StrandedOrdersRepository;
let team: Team;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_stranded');
  db = scratch.db;
  repo = new StrandedOrdersRepository(db);
  team = await createTeam(db);
});
afterAll(() => scratch?.drop());

const finding = (orderId: string, fields: Partial<StrandedFinding> = {}): StrandedFinding => ({
  orderId,
  teamId: team.teamId,
  environment: 'sandbox',
  kind: 'stalled',
  detail: 'no progress',
  ...fields,
});
const row = async (orderId: string) =>
  (await db.query(`SELECT state, kind, detail, heal_attempts, first_seen_at, healed_at, resolved_at FROM stranded_orders WHERE order_id = $1`, [orderId]))[0];

it('one row per order: heals add up, a raise keeps the heal count and time', async () => {
  const orderId = await createOrder(db, team.teamId);
  expect(await repo.healAttempts(orderId)).toBe(0);
  await repo.recordHealed(finding(orderId, { kind: 'closed' }));
  await repo.recordHealed(finding(orderId, { kind: 'missing' }));
  const healed = await row(orderId);
  expect(healed).toMatchObject({ state: 'healed', kind: 'missing', heal_attempts: 2 });
  await repo.recordRaised(finding(orderId, { detail: 'gave up' }));
  expect(await row(orderId)).toMatchObject({
    state: 'raised',
    detail: 'gave up',
    heal_attempts: 2,
    healed_at: healed.healed_at,
    first_seen_at: healed.first_seen_at,
  });
  expect(await repo.healAttempts(orderId)).toBe(2);
});

it('a resolved finding found again reopens with a new first-seen time', async () => {
  const orderId = await createOrder(db, team.teamId);
  await repo.recordRaised(finding(orderId));
  const first = await row(orderId);
  expect(await repo.resolve([orderId])).toBe(1);
  expect(await repo.resolve([orderId])).toBe(0);
  expect((await row(orderId)).state).toBe('resolved');
  await repo.recordRaised(finding(orderId));
  const reopened = await row(orderId);
  expect(reopened).toMatchObject({ state: 'raised', resolved_at: null });
  expect(reopened.first_seen_at.getTime()).toBeGreaterThan(first.first_seen_at.getTime());
});

it('resolves open rows whose order ended, and only those', async () => {
  const ended = await createOrder(db, team.teamId, { lowLevelStatus: 'completed', status: 'completed' });
  const running = await createOrder(db, team.teamId);
  await repo.recordRaised(finding(ended));
  await repo.recordRaised(finding(running));
  expect(await repo.resolveEnded()).toBe(1);
  expect((await row(ended)).state).toBe('resolved');
  expect((await row(running)).state).toBe('raised');
  expect(await repo.resolveEnded()).toBe(0);
});

it("pages a team's rows oldest first across rows made at the same microsecond, resolved ones when asked; never another team's", async () => {
  const lister = await createTeam(db);
  const other = await createTeam(db);
  const orders: string[] = [];
  for (let i = 0; i < 5; i++) {
    const orderId = await createOrder(db, lister.teamId);
    orders.push(orderId);
    await repo.recordRaised(finding(orderId, { teamId: lister.teamId }));
  }
  await repo.recordRaised(finding(await createOrder(db, other.teamId), { teamId: other.teamId }));
  await db.query(`UPDATE stranded_orders SET created_at = '2026-01-01T00:00:00.000001Z' WHERE order_id = ANY($1::uuid[])`, [orders.slice(0, 3)]);
  await repo.resolve([orders[4]]);
  const ids = await db.query(`SELECT id, order_id FROM stranded_orders WHERE team_id = $1 ORDER BY created_at, id`, [lister.teamId]);

  const all = async (includeResolved: boolean) => {
    const seen: string[] = [];
    let after: StrandedListPosition | undefined;
    let pages = 0;
    for (;;) {
      const page = await repo.listForTeam(lister.teamId, { includeResolved, after, limit: 2 });
      seen.push(...page.items.map((item) => item.orderId));
      pages++;
      if (!page.next) return { seen, pages };
      after = page.next;
    }
  };
  const expected = ids.map((item: { order_id: string }) => item.order_id);
  expect(await all(true)).toEqual({ seen: expected, pages: 3 });
  // Four open rows: two full pages, the second with no cursor to an empty third.
  expect(await all(false)).toEqual({ seen: expected.filter((orderId: string) => orderId !== orders[4]), pages: 2 });
});

it('counts open rows by kind and state for the gauge', async () => {
  await db.query(`DELETE FROM stranded_orders`);
  await repo.recordRaised(finding(await createOrder(db, team.teamId), { kind: 'closed' }));
  await repo.recordRaised(finding(await createOrder(db, team.teamId), { kind: 'closed' }));
  await repo.recordHealed(finding(await createOrder(db, team.teamId), { kind: 'missing' }));
  const resolved = await createOrder(db, team.teamId);
  await repo.recordRaised(finding(resolved));
  await repo.resolve([resolved]);
  expect((await repo.countOpen()).sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
    { kind: 'closed', state: 'raised', count: 2 },
    { kind: 'missing', state: 'healed', count: 1 },
  ]);
});
