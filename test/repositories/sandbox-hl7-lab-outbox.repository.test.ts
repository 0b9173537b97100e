import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { SandboxHl7LabOutboxRepository } from '../../src/adapters/lab/sandbox-hl7-lab-outbox.repository';
import { PhiCipher } from '../../src/common/crypto';
import { migratedScratchDatabase } from '../helpers/repository-db';

/** The sandbox HL7 lab's outbox on a database of this file's own: claims and the next due time read every row. */
let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
let db: DataSource;
let outbox: SandboxHl7LabOutboxRepository;
const ORDER_MESSAGE = 'MSH|^~\\&|LABFLOW|LABFLOW-TEST|SANDBOX|SBX|20261129010000||ORM^O01|LF1|T|2.3\rPID|1||PAT^^^LABFLOW^PI||Okonkwo^Marguerite';

beforeAll(async () => {
  scratch = await migratedScratchDatabase('labflow_repo_sandbox_lab_outbox');
  db = scratch.db;
  outbox = new SandboxHl7LabOutboxRepository(db, new PhiCipher(randomBytes(32)));
});
afterAll(() => scratch?.drop());
beforeEach(() => db.query(`DELETE FROM sandbox_hl7_lab_outbox`));

const due = (orderId: string, status: string) =>
  db.query(`UPDATE sandbox_hl7_lab_outbox SET due_at = clock_timestamp() WHERE order_id = $1 AND status = $2`, [orderId, status]);

it('holds an order’s reports sealed, due later; a repeat of the order keeps the first ones', async () => {
  const orderId = randomUUID();
  await outbox.hold(orderId, ORDER_MESSAGE, [
    { status: 'P', dueInMs: 60_000 },
    { status: 'F', dueInMs: 120_000 },
  ]);
  await outbox.hold(orderId, `${ORDER_MESSAGE}-again`, [{ status: 'P', dueInMs: 0 }]);
  const rows = await db.query(`SELECT status, order_message_enc FROM sandbox_hl7_lab_outbox ORDER BY status`);
  expect(rows.map((row: { status: string }) => row.status)).toEqual(['F', 'P']);
  expect(rows.every((row: { order_message_enc: string }) => !row.order_message_enc.includes('Okonkwo'))).toBe(true);
  expect(await outbox.claimDue(10, 60_000)).toEqual([]);
  const next = await outbox.nextDueInMs();
  expect(next).toBeGreaterThan(0);
  expect(next).toBeLessThanOrEqual(60_000);
});

it('a due report is claimed once (leased), sent or put off with its backoff, and a cancellation drops what is owed', async () => {
  const [sent, later, cancelled] = [randomUUID(), randomUUID(), randomUUID()];
  for (const orderId of [sent, later, cancelled]) await outbox.hold(orderId, ORDER_MESSAGE, [{ status: 'P', dueInMs: 0 }]);
  const claims = await Promise.all([outbox.claimDue(10, 60_000), outbox.claimDue(10, 60_000)]);
  const claimed = claims.flat();
  expect(claimed.map((report) => report.orderId).sort()).toEqual([sent, later, cancelled].sort());
  expect(claimed.every((report) => report.orderMessage === ORDER_MESSAGE && report.status === 'P' && report.backoffMs === 0)).toBe(true);
  expect(await outbox.claimDue(10, 60_000)).toEqual([]);

  await outbox.sent(claimed.find((report) => report.orderId === sent)!);
  await outbox.later(
    claimed.find((report) => report.orderId === later)!,
    2000,
  );
  await outbox.drop(cancelled);
  expect(await db.query(`SELECT order_id, backoff_ms, attempts FROM sandbox_hl7_lab_outbox`)).toEqual([{ order_id: later, backoff_ms: 2000, attempts: 1 }]);
  await due(later, 'P');
  expect(await outbox.claimDue(10, 60_000)).toEqual([{ orderId: later, status: 'P', orderMessage: ORDER_MESSAGE, backoffMs: 2000 }]);
  expect(await outbox.nextDueInMs()).toBeGreaterThan(0);
});

it('an outbox that owes nothing has no next due time (the sender then waits for its poll, not at once)', async () => {
  const orderId = randomUUID();
  expect(await outbox.nextDueInMs()).toBeNull();
  await outbox.hold(orderId, ORDER_MESSAGE, [{ status: 'P', dueInMs: 0 }]);
  await due(orderId, 'P');
  expect(await outbox.nextDueInMs()).toBe(0);
  await outbox.sent((await outbox.claimDue(10, 60_000))[0]);
  expect(await outbox.nextDueInMs()).toBeNull();
});

it('a final report waits while its order’s preliminary is owed, and does not count as due meanwhile', async () => {
  const orderId = randomUUID();
  await outbox.hold(orderId, ORDER_MESSAGE, [
    { status: 'P', dueInMs: 0 },
    { status: 'F', dueInMs: 0 },
  ]);
  await due(orderId, 'F');
  const first = await outbox.claimDue(10, 60_000);
  expect(first.map((report) => report.status)).toEqual(['P']);
  // The preliminary is leased: nothing else may go, and the waiting final is not "due now".
  expect(await outbox.claimDue(10, 60_000)).toEqual([]);
  expect(await outbox.nextDueInMs()).toBeGreaterThan(1000);
  await outbox.sent(first[0]);
  expect((await outbox.claimDue(10, 60_000)).map((report) => report.status)).toEqual(['F']);
});
