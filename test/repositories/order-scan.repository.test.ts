import type { DataSource } from 'typeorm';
import { type OrderScanPosition, OrderScanRepository } from '../../src/orders/order-scan.repository';
import { createOrder, createTeam, migratedScratchDatabase, type Team } from '../helpers/repository-db';

/** OrderScanRepository on a database of this file's own: the reconciler scans every team's orders. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let repo: OrderScanRepository;
let team: Team;

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_order_scan');
  db = scratch.db;
  repo = new OrderScanRepository(db);
  team = await createTeam(db);
});
afterAll(() => scratch?.drop());

it('pages the orders not ended by creation across orders created at the same microsecond; a full last page leads to an empty one', async () => {
  const running: string[] = [];
  for (let i = 0; i < 4; i++) running.push(await createOrder(db, team.teamId, { createdAt: '2026-04-01T00:00:00.000001Z' }));
  running.push(await createOrder(db, team.teamId, { createdAt: '2026-04-01T00:00:00.000002Z' }));
  running.push(await createOrder(db, team.teamId, { createdAt: '2026-03-01T00:00:00Z' }));
  for (const low of ['completed', 'cancelled', 'sample_error'])
    await createOrder(db, team.teamId, { createdAt: '2026-04-01T00:00:00.000001Z', lowLevelStatus: low });
  const expected = (await db.query(`SELECT id FROM orders WHERE id = ANY($1::uuid[]) ORDER BY created_at, id`, [running])).map((row: { id: string }) => row.id);
  expect(expected[0]).toBe(running[5]);

  for (const size of [2, 4, 6]) {
    const seen: string[] = [];
    let after: OrderScanPosition | null = null;
    let pages = 0;
    do {
      const page: { orders: Array<{ id: string }>; next: OrderScanPosition | null } = await repo.nonTerminalPage(after, size);
      seen.push(...page.orders.map((order) => order.id));
      after = page.next;
      pages++;
    } while (after);
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.floor(expected.length / size) + 1);
  }
});

it('lists orders whose workflow start is unconfirmed and older than the cutoff, oldest first', async () => {
  const older = await createOrder(db, team.teamId, { createdAt: '2026-01-01T00:00:00Z' });
  const old = await createOrder(db, team.teamId, { createdAt: '2026-01-02T00:00:00Z' });
  const started = await createOrder(db, team.teamId, { createdAt: '2025-12-01T00:00:00Z' });
  await db.query(`UPDATE orders SET workflow_started_at = now() WHERE id = $1`, [started]);
  await createOrder(db, team.teamId, { createdAt: '2026-02-01T00:00:00Z' });
  const cutoff = new Date('2026-01-15T00:00:00Z');
  expect((await repo.unstarted(cutoff, 10)).map((order) => order.id)).toEqual([older, old]);
  expect((await repo.unstarted(cutoff, 1)).map((order) => order.id)).toEqual([older]);
});

it('one reconciler pass at a time', async () => {
  expect(await repo.exclusively(() => repo.exclusively(async () => 'inner'))).toEqual({ ran: true, value: { ran: false } });
  expect(await repo.exclusively(async () => 1)).toEqual({ ran: true, value: 1 });
});
