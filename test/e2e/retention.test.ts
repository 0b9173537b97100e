import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../../src/common/crypto';
import { RetentionSweeper } from '../../src/retention/retention-sweeper';
import { orderBody, startOrderStack } from '../helpers/orders';
import { call, type Tenant, type TestStack } from '../helpers/stack';

/**
 * The retention sweeper against the real database: what it deletes, what it must keep, and that
 * only one process sweeps at a time. Rows are back-dated past the retention limits; other test
 * files share the database, but nothing of theirs is that old.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
const CONFIG = {
  eventRetentionMs: 90 * DAY_MS,
  orderIdempotencyKeyTtlMs: DAY_MS,
  appointmentIdempotencyKeyTtlMs: 14 * DAY_MS,
  linkBulkOpRetentionMs: 90 * DAY_MS,
  batchSize: 2,
};

let stack: TestStack;
let tenant: Tenant;
let orderId: string;
let userId: string;

beforeAll(async () => {
  ({ stack, tenant, userId } = await startOrderStack());
  const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
  expect(created.status).toBe(200);
  orderId = created.body.order.id;
});
afterAll(() => stack?.close());

/** An outbox event of this test's team, `ageDays` old. */
async function event(ageDays: number, options: { subject?: string; relayed?: boolean } = {}): Promise<string> {
  const id = randomUUID();
  const data = new PhiCipher(stack.config.phiEncryptionKey).encryptJson({ note: 'retention test' });
  await stack.db.query(
    `INSERT INTO event_outbox (id, event_type, team_id, environment, user_id, client_user_id, subject_id, data_enc, created_at, relayed_at)
     VALUES ($1, 'labtest.order.updated', $2, 'sandbox', 'u', 'c', $3, $4, now() - make_interval(days => $5), CASE WHEN $6 THEN now() END)`,
    [id, tenant.teamId, options.subject ?? null, data, ageDays, options.relayed ?? true],
  );
  return id;
}

async function delivery(eventId: string, status: 'pending' | 'succeeded'): Promise<string> {
  const [endpoint] = await stack.db.query(
    `INSERT INTO webhook_endpoints (id, team_id, environment, url, secret_enc, created_at, updated_at)
     VALUES ($1, $2, 'sandbox', 'https://hooks.example.com/retention', 'x', now(), now()) RETURNING id`,
    [randomUUID(), tenant.teamId],
  );
  const id = randomUUID();
  await stack.db.query(
    `INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, status, attempt_count)
     VALUES ($1, $2, 'webhook', $3, $4, 'sandbox', 'labtest.order.updated', $5, 1)`,
    [id, eventId, endpoint.id, tenant.teamId, status],
  );
  await stack.db.query(
    `INSERT INTO event_delivery_attempts (id, delivery_id, event_id, endpoint_id, attempt_number, trigger, status, target)
     VALUES ($1, $2, $3, $4, 1, 'scheduled', $5, 'webhook')`,
    [randomUUID(), id, eventId, endpoint.id, status === 'pending' ? 'failed' : 'succeeded'],
  );
  return id;
}

const exists = async (table: string, column: string, value: string) =>
  (await stack.db.query(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [value])).length === 1;

test('deletes old finished events with their deliveries, and keeps what is still needed', async () => {
  const order = `order-${randomUUID()}`;
  const olderOfOrder = await event(120, { subject: order });
  const newestOfOrder = await event(100, { subject: order });
  const delivered = await event(100);
  const deliveredDelivery = await delivery(delivered, 'succeeded');
  const stillPending = await event(100);
  const pendingDelivery = await delivery(stillPending, 'pending');
  const neverRelayed = await event(100, { relayed: false });
  const recent = await event(10);
  const extraOld = await Promise.all([event(95), event(96), event(97)]);

  const report = await new RetentionSweeper(stack.db, CONFIG).sweepOnce();

  // Batches of 2 are drained until none is left: every old, finished event is gone.
  expect(report?.events).toBeGreaterThanOrEqual(5);
  for (const gone of [olderOfOrder, delivered, ...extraOld]) expect(await exists('event_outbox', 'id', gone)).toBe(false);
  expect(await exists('event_deliveries', 'id', deliveredDelivery)).toBe(false);
  expect(await exists('event_delivery_attempts', 'delivery_id', deliveredDelivery)).toBe(false);
  // Kept: the newest event of the order (resend_events), an event still being delivered, one the
  // relay has not fanned out yet, and a recent one.
  for (const kept of [newestOfOrder, stillPending, neverRelayed, recent]) expect(await exists('event_outbox', 'id', kept)).toBe(true);
  expect(await exists('event_delivery_attempts', 'delivery_id', pendingDelivery)).toBe(true);
});

test('deletes idempotency keys past their TTL and keeps live ones', async () => {
  const key = (label: string) => `retention-${label}-${randomUUID()}`;
  const expiredOrderKeys = [key('order-a'), key('order-b'), key('order-c')];
  const liveOrderKey = key('order-live');
  for (const [k, hours] of [...expiredOrderKeys.map((k) => [k, 25] as const), [liveOrderKey, 1] as const]) {
    await stack.db.query(
      `INSERT INTO idempotency_keys (team_id, environment, key, request_hash, state, status_code, response, created_at)
       VALUES ($1, 'sandbox', $2, 'h', 'done', 200, '{}'::jsonb, now() - make_interval(hours => $3))`,
      [tenant.teamId, k, hours],
    );
  }
  const expiredBooking = key('booking-old');
  const liveBooking = key('booking-live');
  for (const [k, days] of [
    [expiredBooking, 15],
    [liveBooking, 13],
  ] as const) {
    await stack.db.query(
      `INSERT INTO appointment_idempotency_keys (team_id, environment, key, order_id, request_hash, appointment_id, created_at)
       VALUES ($1, 'sandbox', $2, $3, 'h', $4, now() - make_interval(days => $5))`,
      [tenant.teamId, k, orderId, randomUUID(), days],
    );
  }

  const report = await new RetentionSweeper(stack.db, CONFIG).sweepOnce();

  expect(report?.orderIdempotencyKeys).toBeGreaterThanOrEqual(3);
  expect(report?.appointmentIdempotencyKeys).toBeGreaterThanOrEqual(1);
  for (const gone of expiredOrderKeys) expect(await exists('idempotency_keys', 'key', gone)).toBe(false);
  expect(await exists('idempotency_keys', 'key', liveOrderKey)).toBe(true);
  expect(await exists('appointment_idempotency_keys', 'key', expiredBooking)).toBe(false);
  expect(await exists('appointment_idempotency_keys', 'key', liveBooking)).toBe(true);
});

test('link tokens go a day after they expired; newer ones stay, so their state still answers', async () => {
  const token = async (expiredHoursAgo: number) => {
    const created = await call(stack.apiUrl, 'POST', '/v2/link/token', { key: tenant.apiKey, body: { user_id: userId } });
    expect(created.status).toBe(200);
    // An UPDATE through TypeORM answers [rows, count].
    const [[row]] = await stack.db.query(
      `UPDATE link_tokens SET expires_at = now() - make_interval(hours => $2) WHERE user_id = $1 AND expires_at > now() RETURNING id`,
      [userId, expiredHoursAgo],
    );
    return row.id as string;
  };
  const old = await token(25);
  const recent = await token(23);
  const report = await new RetentionSweeper(stack.db, CONFIG).sweepOnce();
  expect(report?.linkTokens).toBeGreaterThanOrEqual(1);
  expect(await exists('link_tokens', 'id', old)).toBe(false);
  expect(await exists('link_tokens', 'id', recent)).toBe(true);
});

test("a Link Migration operation's users go 90 days after it ended; it stays listed with its counts", async () => {
  await stack.db.query(`UPDATE teams SET link_migration_enabled = true WHERE id = $1`, [tenant.teamId]);
  const operation = async (endedDaysAgo: number) => {
    const id = randomUUID();
    await stack.db.query(
      `INSERT INTO link_bulk_ops (id, team_id, environment, region, type, provider, status, started_at, ended_at, processed_count)
       VALUES ($1, $2, 'sandbox', 'us', 'link_bulk_import', 'oura', 'success', now() - make_interval(days => $3 + 1), now() - make_interval(days => $3), 3)`,
      [id, tenant.teamId, endedDaysAgo],
    );
    await stack.db.query(`INSERT INTO link_bulk_op_items (op_id, position, user_id, outcome) SELECT $1, n, $2, 'done' FROM generate_series(1, 3) n`, [
      id,
      userId,
    ]);
    return id;
  };
  const items = async (opId: string) => (await stack.db.query(`SELECT count(*)::int AS n FROM link_bulk_op_items WHERE op_id = $1`, [opId]))[0].n;
  const old = await operation(91);
  const recent = await operation(89);

  const report = await new RetentionSweeper(stack.db, CONFIG).sweepOnce();

  expect(report?.linkBulkOpItems).toBeGreaterThanOrEqual(3);
  expect(await items(old)).toBe(0);
  expect(await items(recent)).toBe(3);
  const listed = await call(stack.apiUrl, 'GET', '/v2/link/bulk_op?page_size=100', { key: tenant.apiKey });
  expect(listed.status).toBe(200);
  // Newest first: the recent operation, then the old one, whose users are gone but whose count is not.
  expect(listed.body.data).toEqual([
    expect.objectContaining({ status: 'success', pending: 0, processed: 3 }),
    expect.objectContaining({ status: 'success', pending: 0, processed: 3 }),
  ]);
});

test('one sweeper at a time: a sweep finds the lock taken and deletes nothing', async () => {
  const old = await event(100);
  const holder = stack.db.createQueryRunner();
  await holder.connect();
  try {
    await holder.query(`SELECT pg_advisory_lock($1)`, [0x1abf_0001]);
    expect(await new RetentionSweeper(stack.db, CONFIG).sweepOnce()).toBeNull();
    expect(await exists('event_outbox', 'id', old)).toBe(true);
    await holder.query(`SELECT pg_advisory_unlock($1)`, [0x1abf_0001]);
  } finally {
    await holder.release();
  }
  expect(await new RetentionSweeper(stack.db, CONFIG).sweepOnce()).not.toBeNull();
  expect(await exists('event_outbox', 'id', old)).toBe(false);
});
