import type { DataSource } from 'typeorm';
import { OrderRemindersRepository } from '../../src/reminders/order-reminders.repository';
import { createOrder, createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/** OrderRemindersRepository: one row per (order, reminder key), made by the first attempt. */
let db: DataSource;
let repo: OrderRemindersRepository;
let team: Team;

beforeAll(async () => {
  db = await testDatabase();
  repo = new OrderRemindersRepository(db);
  team = await createTeam(db);
});
afterAll(async () => {
  await dropTeams(db, [team]);
  await db.destroy();
});

const reminder = (orderId: string, sequence = 1) => ({
  order_id: orderId,
  reminder_key: 'kit_return:1',
  team_id: team.teamId,
  kind: 'kit_return' as const,
  sequence,
});

it("a retried attempt gets the first attempt's row, with its link", async () => {
  const orderId = await createOrder(db, team.teamId);
  expect(await repo.claim(reminder(orderId))).toMatchObject({ status: 'sending', attempts: 0, sequence: 1, link_url_enc: null, link_url: null });
  await repo.setLink(orderId, 'kit_return:1', 'v1.sealed-link');
  expect(await repo.claim(reminder(orderId, 2))).toMatchObject({ status: 'sending', sequence: 1, link_url_enc: 'v1.sealed-link', link_url: null });
  expect(await repo.claim({ ...reminder(orderId), reminder_key: 'kit_return:2' })).toMatchObject({ reminder_key: 'kit_return:2', link_url_enc: null });
});

it('failures count while sending (errors cut to 500 characters); a sent reminder stays sent', async () => {
  const orderId = await createOrder(db, team.teamId);
  await repo.claim(reminder(orderId));
  await repo.recordFailure(orderId, 'kit_return:1', 'x'.repeat(600));
  expect((await repo.claim(reminder(orderId))).last_error).toBe('x'.repeat(500));
  await repo.recordFailure(orderId, 'kit_return:1', 'smtp down');
  expect(await repo.claim(reminder(orderId))).toMatchObject({ attempts: 2, last_error: 'smtp down' });
  await repo.markSent(orderId, 'kit_return:1', 'email');
  await repo.recordFailure(orderId, 'kit_return:1', 'late');
  expect(await repo.claim(reminder(orderId))).toMatchObject({ status: 'sent', channel: 'email', attempts: 3, last_error: 'smtp down' });
});

it('a skipped reminder says why', async () => {
  const orderId = await createOrder(db, team.teamId);
  await repo.claim(reminder(orderId));
  await repo.markSkipped(orderId, 'kit_return:1', 'no_contact' as never);
  expect(await repo.claim(reminder(orderId))).toMatchObject({ status: 'skipped', reason: 'no_contact' });
});
