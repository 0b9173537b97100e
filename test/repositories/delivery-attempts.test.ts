import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PhiCipher } from '../../src/common/crypto';
import { type Claim, DeliveriesRepository, type DeliveryContext, type FinishedAttempt } from '../../src/events/deliveries.repository';
import { createTeam, dropTeams, type Team, testDatabase } from '../helpers/repository-db';

/**
 * An attempt's row is written once, with its outcome: the claim only counts the attempt on the
 * delivery (its lease and trigger), the outcome writes the row, and an attempt whose outcome never
 * came is written `interrupted` by the claim that next takes (or cancels) the delivery.
 */
let db: DataSource;
let tenant: Team;
let repo: DeliveriesRepository;
const cipher = new PhiCipher(randomBytes(32));

beforeAll(async () => {
  db = await testDatabase();
  tenant = await createTeam(db);
  repo = new DeliveriesRepository(db);
});
afterAll(async () => {
  await dropTeams(db, [tenant]);
  await db?.destroy();
});

const URL = 'https://hooks.example.com/attempts';

async function endpoint(): Promise<string> {
  const [row] = await db.query(
    `INSERT INTO webhook_endpoints (id, team_id, environment, url, secret_enc) VALUES ($1, $2, 'sandbox', $3, 'x') RETURNING id`,
    [randomUUID(), tenant.teamId, URL],
  );
  return row.id;
}

/** A pending webhook delivery, due now, of a new event. */
async function delivery(endpointId: string, columns: { manual?: boolean } = {}): Promise<string> {
  const eventId = randomUUID();
  await db.query(
    `INSERT INTO event_outbox (id, event_type, team_id, environment, user_id, client_user_id, data_enc, relayed_at)
     VALUES ($1, 'labtest.order.updated', $2, 'sandbox', 'u', 'c', $3, now())`,
    [eventId, tenant.teamId, cipher.encryptJson({})],
  );
  const id = randomUUID();
  await db.query(
    `INSERT INTO event_deliveries (id, event_id, target, endpoint_id, team_id, environment, event_type, manual, enqueued_at)
     VALUES ($1, $2, 'webhook', $3, $4, 'sandbox', 'labtest.order.updated', $5, now())`,
    [id, eventId, endpointId, tenant.teamId, columns.manual === true],
  );
  return id;
}

function claimed(claim: Claim): DeliveryContext {
  if (claim.kind !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(claim)}`);
  return claim.context;
}

function outcome(context: DeliveryContext, status: 'succeeded' | 'failed', delivery: FinishedAttempt['delivery']): FinishedAttempt {
  return {
    claimed: context,
    status,
    statusCode: status === 'succeeded' ? 200 : 500,
    responseExcerpt: null,
    error: status === 'succeeded' ? null : 'HTTP 500',
    latencyMs: 12,
    delivery,
  };
}

interface AttemptRecord {
  attempt_number: number;
  trigger: string;
  status: string;
  url: string | null;
  response_status_code: number | null;
  error: string | null;
  created_at: string;
  finished: boolean;
}

async function attempts(deliveryId: string): Promise<AttemptRecord[]> {
  return db.query(
    `SELECT attempt_number, trigger, status, url, response_status_code, error, created_at::text AS created_at,
            finished_at IS NOT NULL AS finished
       FROM event_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt_number`,
    [deliveryId],
  );
}

async function deliveryRow(id: string): Promise<{ status: string; attempt_count: number; unfinished_trigger: string | null }> {
  const [row] = await db.query(`SELECT status, attempt_count, unfinished_trigger FROM event_deliveries WHERE id = $1`, [id]);
  return row;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the claim writes no attempt row and holds the delivery for its lease; the outcome writes the row', async () => {
  const id = await delivery(await endpoint());
  const context = claimed(await repo.claim(id, { leaseMs: 60_000 }));
  expect(context).toMatchObject({ attempt_number: 1, trigger: 'scheduled', url: URL });
  expect(await attempts(id)).toEqual([]);
  expect(await deliveryRow(id)).toEqual({ status: 'pending', attempt_count: 1, unfinished_trigger: 'scheduled' });

  // A second job of the delivery meanwhile: not due until the lease ends.
  const second = await repo.claim(id, { leaseMs: 60_000 });
  expect(second.kind).toBe('not_due');
  expect(second.kind === 'not_due' && second.atMs).toBeGreaterThan(Date.now() + 50_000);

  await repo.finishAttempt(outcome(context, 'succeeded', { status: 'succeeded', reason: null }));
  expect(await attempts(id)).toEqual([
    { attempt_number: 1, trigger: 'scheduled', status: 'succeeded', url: URL, response_status_code: 200, error: null, created_at: context.claimed_at, finished: true },
  ]);
  expect(await deliveryRow(id)).toEqual({ status: 'succeeded', attempt_count: 1, unfinished_trigger: null });
});

test("a dead worker's attempt is written interrupted by the next claim; a slow worker's outcome replaces it", async () => {
  const id = await delivery(await endpoint(), { manual: true });
  const first = claimed(await repo.claim(id, { leaseMs: 100 }));
  expect(first).toMatchObject({ attempt_number: 1, trigger: 'manual' });
  await sleep(200);

  const second = claimed(await repo.claim(id, { leaseMs: 100 }));
  expect(second).toMatchObject({ attempt_number: 2, trigger: 'scheduled' });
  expect(await attempts(id)).toEqual([
    {
      attempt_number: 1,
      trigger: 'manual',
      status: 'interrupted',
      url: URL,
      response_status_code: null,
      error: 'The worker stopped during this attempt; the receiver may have got it.',
      created_at: first.claimed_at,
      finished: true,
    },
  ]);

  // The first worker was only slow: its outcome takes the place of `interrupted`, and the
  // delivery's second attempt is still the unfinished one.
  await repo.finishAttempts([outcome(first, 'failed', { status: 'pending', delayMs: 1_000 })]);
  expect((await attempts(id)).map((a) => [a.attempt_number, a.trigger, a.status, a.response_status_code, a.created_at])).toEqual([
    [1, 'manual', 'failed', 500, first.claimed_at],
  ]);
  expect(await deliveryRow(id)).toEqual({ status: 'pending', attempt_count: 2, unfinished_trigger: 'scheduled' });

  await repo.finishAttempt(outcome(second, 'succeeded', { status: 'succeeded', reason: null }));
  expect((await attempts(id)).map((a) => [a.attempt_number, a.status])).toEqual([
    [1, 'failed'],
    [2, 'succeeded'],
  ]);
  expect(await deliveryRow(id)).toEqual({ status: 'succeeded', attempt_count: 2, unfinished_trigger: null });
});

test('a manual attempt asked for while an attempt is in flight is not lost to its outcome', async () => {
  const id = await delivery(await endpoint());
  const first = claimed(await repo.claim(id, { leaseMs: 60_000 }));
  // A resend (or the management API's retry) arrives while the first attempt is being sent.
  await db.transaction((manager) => repo.requestManualAttempt(manager, id));
  expect(await repo.finishAttempt(outcome(first, 'succeeded', { status: 'succeeded', reason: null }))).toBe(true);
  expect(await deliveryRow(id)).toEqual({ status: 'pending', attempt_count: 1, unfinished_trigger: null });

  const second = claimed(await repo.claim(id, { leaseMs: 60_000 }));
  expect(second).toMatchObject({ attempt_number: 2, trigger: 'manual' });
  expect(await repo.finishAttempt(outcome(second, 'succeeded', { status: 'succeeded', reason: null }))).toBe(false);
  expect((await attempts(id)).map((a) => [a.attempt_number, a.trigger, a.status])).toEqual([
    [1, 'scheduled', 'succeeded'],
    [2, 'manual', 'succeeded'],
  ]);
  expect(await deliveryRow(id)).toEqual({ status: 'succeeded', attempt_count: 2, unfinished_trigger: null });
});

test("cancelling a delivery (its endpoint was disabled) writes a dead worker's attempt interrupted", async () => {
  const endpointId = await endpoint();
  const id = await delivery(endpointId);
  claimed(await repo.claim(id, { leaseMs: 100 }));
  await sleep(200);
  await db.query(`UPDATE webhook_endpoints SET disabled = true WHERE id = $1`, [endpointId]);

  expect(await repo.claim(id, { leaseMs: 100 })).toEqual({ kind: 'none' });
  expect((await attempts(id)).map((a) => [a.attempt_number, a.status])).toEqual([[1, 'interrupted']]);
  expect((await deliveryRow(id)).status).toBe('cancelled');
});

test('an outcome whose delivery was deleted meanwhile (endpoint deleted) writes nothing and does not fail its batch', async () => {
  const gone = await endpoint();
  const kept = await endpoint();
  const goneDelivery = await delivery(gone);
  const keptDelivery = await delivery(kept);
  const [a, b] = await repo.claimMany(
    [
      { deliveryId: goneDelivery, rateLimitCleared: false },
      { deliveryId: keptDelivery, rateLimitCleared: false },
    ],
    60_000,
  );
  await db.query(`DELETE FROM webhook_endpoints WHERE id = $1`, [gone]);

  await repo.finishAttempts([
    outcome(claimed(a), 'succeeded', { status: 'succeeded', reason: null }),
    outcome(claimed(b), 'succeeded', { status: 'succeeded', reason: null }),
  ]);
  expect(await attempts(goneDelivery)).toEqual([]);
  expect((await attempts(keptDelivery)).map((row) => row.status)).toEqual(['succeeded']);
});

test('a row left `sending` before migration 1763790200000 is held by its lease, then marked interrupted', async () => {
  const endpointId = await endpoint();
  // As the migration leaves a delivery whose latest attempt was `sending`: its trigger on the delivery.
  const legacy = async (claimedAgo: string) => {
    const id = await delivery(endpointId);
    await db.query(
      `UPDATE event_deliveries SET attempt_count = 1, last_attempt_at = now() - $2::interval, unfinished_trigger = 'scheduled' WHERE id = $1`,
      [id, claimedAgo],
    );
    await db.query(
      `INSERT INTO event_delivery_attempts (id, delivery_id, event_id, endpoint_id, attempt_number, trigger, status, target, url, created_at)
       SELECT gen_random_uuid(), d.id, d.event_id, d.endpoint_id, 1, 'scheduled', 'sending', 'webhook', $2, d.last_attempt_at
         FROM event_deliveries d WHERE d.id = $1`,
      [id, URL],
    );
    return id;
  };
  const inFlight = await legacy('1 second');
  const dead = await legacy('10 minutes');

  expect((await repo.claim(inFlight, { leaseMs: 60_000 })).kind).toBe('not_due');
  expect(claimed(await repo.claim(dead, { leaseMs: 60_000 })).attempt_number).toBe(2);
  expect((await attempts(dead)).map((a) => [a.attempt_number, a.status, a.finished])).toEqual([[1, 'interrupted', true]]);
});
